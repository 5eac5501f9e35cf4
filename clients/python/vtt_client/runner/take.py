"""Taking a session's questions: read a stream's position from the server, ask the model, answer.

Up to N streams are taken at once (runner/streams.py), each its own chat. Every question starts from the
server: its stream's current question and history (one request), from which the chat is rebuilt
(conversation.py). Nothing is carried from one question to the next, so a run that is stopped anywhere,
by a crash, a kill or a model server that went away, goes on from the server's position of every open
stream when it is run again, and sends the prompts an uninterrupted run would have.

A reply is read as yes or no (replies.py). A reply that says neither gets exactly one retry, with the
strict instruction after it; if that one is unclear too, the question is answered **no**, without a
p_yes, and logged as not understood (`"parsed": false`): a fixed answer keeps the run going and is scored
as what it is, a guess, and the summary counts these replies. The probability of yes is read from the
logprobs of the reply that gave the answer; one that contradicts the answer (read off another token than
the one the text was read from) is not sent, and is logged as `p_yes_disagreeing`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vtt_client.client import Session
from vtt_client.runner import conversation
from vtt_client.runner.conversation import Showing
from vtt_client.runner.drawing import data_url, drawn_image
from vtt_client.runner.log import Progress, RunLog
from vtt_client.runner.model import Backend, Completion
from vtt_client.runner.prompts import Prompts
from vtt_client.runner.replies import agrees, p_yes_from, parse_reply
from vtt_client.runner.streams import run_streams
from vtt_client.types import AnswerResult, HistoryEntry, Question


@dataclass(frozen=True)
class Asked:
    """What the model answered to one question, and what it took."""

    answer: bool
    parsed: bool
    p_yes: float | None
    p_yes_disagreeing: float | None
    replies: tuple[str, ...]
    tokens_in: int | None
    tokens_out: int | None
    retries: int
    seconds: float


def take(
    session: Session,
    model: Backend,
    *,
    prompts: Prompts,
    showing: Showing,
    log: RunLog,
    progress: Progress,
    concurrency: int | None = None,
) -> None:
    """Answer every question left in the session, up to `concurrency` streams at once (default: as
    many as the session may have open), each stream its own chat (runner/streams.py)."""
    run_streams(
        session,
        lambda question, history: take_one(
            session, model, question, history, prompts=prompts, showing=showing, log=log
        ),
        concurrency=concurrency or session.open_streams or 1,
        model=model,
        progress=progress,
    )


def take_one(
    session: Session,
    model: Backend,
    question: Question,
    history: list[HistoryEntry],
    *,
    prompts: Prompts,
    showing: Showing,
    log: RunLog,
) -> tuple[AnswerResult, Asked]:
    """One question: the chat rebuilt from its stream's history, the model's answer, stored and logged."""
    image_url = _image_url(question, showing)
    messages = conversation.chat(question, history, prompts=prompts, showing=showing, image_url=image_url)
    asked = ask(model, messages, prompts)
    result = session.answer(question, asked.answer, asked.p_yes)
    log.question(_record(question, messages, asked, truth=result.correct_answer, label=result.label))
    return result, asked


def ask(model: Backend, messages: Sequence[Mapping[str, Any]], prompts: Prompts) -> Asked:
    """The model's answer to the chat, with one strict retry if its reply says neither yes nor no."""
    started = time.monotonic()
    completions = [model.complete(messages)]
    answer = parse_reply(completions[0].text)
    if answer is None:
        completions.append(model.complete(conversation.strict_retry(messages, completions[0].text, prompts)))
        answer = parse_reply(completions[-1].text)
    p_yes = _p_yes(completions[-1]) if answer is not None else None
    disagreeing = p_yes if p_yes is not None and answer is not None and not agrees(answer, p_yes) else None
    return Asked(
        answer=bool(answer),  # not understood twice: no
        parsed=answer is not None,
        p_yes=None if disagreeing is not None else p_yes,
        p_yes_disagreeing=disagreeing,
        replies=tuple(c.text for c in completions),
        tokens_in=_total(c.tokens_in for c in completions),
        tokens_out=_total(c.tokens_out for c in completions),
        retries=sum(c.retries for c in completions),
        seconds=time.monotonic() - started,
    )


def _image_url(question: Question, showing: Showing) -> str | None:
    """The image as the model is shown it, inline; None for a blind run."""
    if not showing.image:
        return None
    encoded = drawn_image(
        question.image_bytes(), question, draw=showing.drawn, image_format=showing.image_format
    )
    return data_url(encoded, showing.image_format)


def prompt_sha256(messages: Sequence[Mapping[str, Any]]) -> str:
    """The prompt's fingerprint: the chat as sent (the image's bytes included), in canonical JSON."""
    canonical = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _p_yes(completion: Completion) -> float | None:
    return p_yes_from(completion.tokens) if completion.tokens else None


def _total(counts: Any) -> int | None:
    """The sum of token counts, or None when the server reported none."""
    known = [count for count in counts if count is not None]
    return sum(known) if known else None


def _record(
    question: Question, messages: Sequence[Mapping[str, Any]], asked: Asked, *, truth: bool, label: str | None
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "stream": question.stream,
        "step": question.step,
        "kind": question.kind,
        "text": question.text,
        "prompt_sha256": prompt_sha256(messages),
        "replies": list(asked.replies),
        "answer": "yes" if asked.answer else "no",
        "parsed": asked.parsed,
        "p_yes": asked.p_yes,
        "tokens_in": asked.tokens_in,
        "tokens_out": asked.tokens_out,
        "seconds": round(asked.seconds, 3),
        "retries": asked.retries,
        "truth": "yes" if truth else "no",
        "correct": asked.answer == truth,
        "label": label,
    }
    if asked.p_yes_disagreeing is not None:
        record["p_yes_disagreeing"] = asked.p_yes_disagreeing
    return record
