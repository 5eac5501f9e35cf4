"""The chat a model is given for one question: one chat per stream, rebuilt from what the server recorded.

The chat opens with the system prompt; then each earlier step of the stream is a user turn (its question)
and an assistant turn (the answer the system gave, "Yes." or "No."); the truth of a step is told at the
start of the next user turn ("The correct answer was yes: that vehicle is now called vehicle 1."), the
way the method reveals it; the last user turn is the current question. A new stream starts a new chat.

The chat is a function of the current question and the stream's `history` from the server, nothing
else: the runner keeps no state between questions, so a run resumed after a crash asks exactly what an
uninterrupted run would have (the same prompt, byte for byte). For that reason the assistant turns are
the answers as stored, not the model's raw replies (which the server does not keep): a reply that needed
the strict retry, or was never understood, stands in the chat as the answer that was given for it.

Only the current question's turn carries the image. Its drawing changes at every step (each question
has its own designated region, and a yes can name a new object), so an image on an earlier turn would
show an earlier question's regions beside the current one's: the model would have to tell which picture
is current. One image also keeps each request small, and within what a server that takes one image
per prompt accepts. Earlier turns give their regions in words when the run
shows words; with `--show drawn` they give only their question.

A blind run (`--blind`) is shown no pixels: the same chat without the image, and with a system prompt
that says the image is not shown. With `--show words` or `both` (the default) its turns give the regions
in words, as a seeing run's do, so that a blind row differs from a seeing row by the pixels alone; with
`--show drawn` it is shown the questions' text and the history only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vtt_client.runner.drawing import corners
from vtt_client.runner.prompts import Prompts
from vtt_client.types import ExistQuestion, HistoryEntry, Image, Label, Question

Message = dict[str, Any]


@dataclass(frozen=True)
class Showing:
    """What the model is shown: the image (`image`), with the regions drawn on it (`drawn`), and the
    regions in words (`words`)."""

    image: bool
    drawn: bool
    words: bool
    image_format: str = "jpeg"  # how the image is encoded: "jpeg" or "png" (drawing.py)

    @classmethod
    def of(cls, show: str, *, blind: bool, image_format: str = "jpeg") -> Showing:
        """From `--show drawn|words|both`, `--blind` (a blind run is shown no image to draw on) and
        `--image-format`."""
        return cls(
            image=not blind,
            drawn=not blind and show in ("drawn", "both"),
            words=show in ("words", "both"),
            image_format=image_format,
        )


def chat(
    question: Question,
    history: Sequence[HistoryEntry],
    *,
    prompts: Prompts,
    showing: Showing,
    image_url: str | None,
) -> list[Message]:
    """The messages for `question`, after the stream's earlier steps `history` (see the docstring)."""
    messages: list[Message] = [{"role": "system", "content": _system(prompts, showing)}]
    revealed = ""
    for entry in history:
        past = prompts.turn(
            "past_question",
            revealed=revealed,
            text=entry.text,
            # The stream's image is the current question's; earlier turns carry no image to draw on.
            region=_region(entry.question, question.image, prompts, "words" if showing.words else None),
        )
        messages.append({"role": "user", "content": past})
        messages.append({"role": "assistant", "content": "Yes." if entry.answer else "No."})
        revealed = _revealed(entry, prompts)
    messages.append(_current_turn(question, revealed, prompts, showing, image_url))
    return messages


def strict_retry(
    messages: Sequence[Mapping[str, Any]], reply: str, prompts: Prompts
) -> list[Mapping[str, Any]]:
    """The chat again after a reply that said neither yes nor no, with that reply and the stricter
    instruction after it."""
    return [
        *messages,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": prompts.turn("strict")},
    ]


def _system(prompts: Prompts, showing: Showing) -> str:
    if not showing.image:
        return prompts.turn("system_blind")
    return prompts.turn("system", drawing=prompts.phrase("drawing_on" if showing.drawn else "drawing_off"))


def _current_turn(
    question: Question, revealed: str, prompts: Prompts, showing: Showing, image_url: str | None
) -> Message:
    text = prompts.turn(
        "question",
        revealed=revealed,
        labels="\n".join(_label(label, prompts, showing) for label in question.labels),
        text=question.text,
        region=_region(question, question.image, prompts, _mode(showing)),
    )
    if image_url is None or not showing.image:
        return {"role": "user", "content": text}
    return {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": image_url}}, {"type": "text", "text": text}],
    }


def _mode(showing: Showing) -> str | None:
    """Which of a phrase's three forms: drawn, words or both (None: neither, nothing to say)."""
    if showing.drawn and showing.words:
        return "both"
    if showing.drawn:
        return "drawn"
    return "words" if showing.words else None


def _region(asked: Question, image: Image, prompts: Prompts, mode: str | None) -> str:
    """The designated region of `asked` (an instantiation question), in the phrase's form `mode`."""
    if mode is None or not isinstance(asked, ExistQuestion):
        return ""
    x0, y0, x1, y1 = corners(asked.region.box)
    return prompts.phrase(
        f"region_{mode}", x0=x0, y0=y0, x1=x1, y1=y1, width=image.width, height=image.height
    )


def _label(label: Label, prompts: Prompts, showing: Showing) -> str:
    mode = _mode(showing)
    if mode is None:
        return ""
    x0, y0, x1, y1 = corners(label.question.region.box)
    return prompts.phrase(
        f"label_{mode}", label=label.label, type=label.question.type, x0=x0, y0=y0, x1=x1, y1=y1
    )


def _revealed(entry: HistoryEntry, prompts: Prompts) -> str:
    truth = "yes" if entry.truth else "no"
    if entry.label and isinstance(entry.question, ExistQuestion):
        return prompts.phrase("revealed_label", truth=truth, label=entry.label, type=entry.question.type)
    return prompts.phrase("revealed", truth=truth)
