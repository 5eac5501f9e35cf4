"""What a run leaves behind: a JSONL log per session, a progress line on stderr and a summary at the end.

The log is `<log dir>/session-<session>.jsonl`, appended to by every run of the session (a run resumed
after a crash adds to the same file). Each run first writes a line `{"event": "run", ...}` with its
settings (never a secret); then one line `{"event": "question", ...}` per question answered, written
once the answer is stored and its truth revealed: the stream and step, the question's text, the SHA-256
of the prompt (the chat as sent, image included), the raw replies (two when the strict retry was needed),
the answer, whether the reply was understood, p_yes, the tokens in and out, the seconds the model took,
the retries, the truth and whether the answer was right. A run killed between storing an answer and
writing its line loses that line (the session keeps the answer).
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from vtt_client.types import Question, Score

_WRITING = threading.Lock()


class RunLog:
    def __init__(self, directory: Path, session_id: int) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / f"session-{session_id}.jsonl"
        self.session_id = session_id

    def run_started(self, settings: Mapping[str, Any]) -> None:
        self._write({"event": "run", "session": self.session_id, "started": _now(), **settings})

    def question(self, record: Mapping[str, Any]) -> None:
        self._write({"event": "question", "session": self.session_id, **record})

    def questions(self) -> list[dict[str, Any]]:
        """Every question line of the session, from every run, in the order written."""
        if not self.path.exists():
            return []
        with self.path.open(encoding="utf-8") as lines:
            records = [json.loads(line) for line in lines if line.strip()]
        return [record for record in records if record.get("event") == "question"]

    def _write(self, record: Mapping[str, Any]) -> None:
        # One line at a time, flushed: a crash leaves every line written whole; several streams' threads
        # write one after the other (each line names its stream).
        with _WRITING, self.path.open("a", encoding="utf-8") as file:
            file.write(json.dumps(record, ensure_ascii=False) + "\n")


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")  # local time, with its offset


@dataclass(frozen=True)
class Totals:
    questions: int
    right: int
    unparsed: int
    tokens_in: int
    tokens_out: int
    seconds: float
    retries: int

    @classmethod
    def of(cls, records: Iterable[Mapping[str, Any]]) -> Totals:
        rows = list(records)
        return cls(
            questions=len(rows),
            right=sum(1 for r in rows if r["correct"]),
            unparsed=sum(1 for r in rows if not r["parsed"]),
            tokens_in=sum(r["tokens_in"] or 0 for r in rows),
            tokens_out=sum(r["tokens_out"] or 0 for r in rows),
            seconds=sum(r["seconds"] for r in rows),
            retries=sum(r["retries"] for r in rows),
        )


def probabilities(forecasts: dict[str, Any]) -> str:
    """The server's scores of the p_yes given: "Brier 0.212, log loss 0.61, calibration error 0.08"."""
    figures = ", ".join(
        f"{name} {forecasts[key]['value']:.3f}"
        for key, name in (
            ("brier", "Brier"),
            ("log_loss", "log loss"),
            ("calibration_error", "calibration error"),
        )
    )
    given = (
        ""
        if forecasts["complete"]
        else f" (p given on {forecasts['given']} of {forecasts['questions']} questions)"
    )
    return f"probabilities: {figures}{given}"


def summary(totals: Totals, score: Score, log_path: Path) -> str:
    """The lines printed at the end of a run: the server's score, then this session's log."""
    accuracy = score.accuracy
    if accuracy.value is None:
        scored = "no question answered"
    else:
        scored = f"accuracy {accuracy.value:.3f} ({accuracy.successes} of {accuracy.trials} right"
        if accuracy.low is not None and accuracy.high is not None:
            scored += f", 95% interval {accuracy.low:.3f} to {accuracy.high:.3f}"
        scored += ")"
    per_question = totals.seconds / totals.questions if totals.questions else 0.0
    return "\n".join(
        [
            scored if score.complete else f"{scored}; the test is not finished",
            *([probabilities(score.forecasts)] if score.forecasts else []),
            f"logged: {totals.questions} questions, {totals.right} right, {totals.unparsed} replies not "
            f"understood (answered no), {totals.retries} retries",
            f"tokens: {totals.tokens_in:,} in, {totals.tokens_out:,} out; {per_question:.2f} s per question",
            f"log: {log_path}",
        ]
    )


class Progress:
    """A progress line on stderr: redrawn after every answer on a terminal; elsewhere (a file, a CI log)
    a line at the end of each stream, so that the log stays readable. With several streams at once it
    says how many are in flight, and a stream's line names that stream."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.answered = self.right = self.unparsed = 0
        self._lock = threading.Lock()

    def answered_one(
        self, question: Question, *, correct: bool, parsed: bool, stream_ended: bool, in_flight: int = 1
    ) -> None:
        with self._lock:
            self.answered += 1
            self.right += correct
            self.unparsed += not parsed
            line = self._line(question, stream_ended)
            if in_flight > 1:
                line += f", {in_flight} streams in flight"
            if self.live:
                self._write("\r" + line + " ")
            elif stream_ended:
                self._write(line + "\n")

    def done(self) -> None:
        if self.live and self.answered:
            self._write("\n")

    def _line(self, question: Question, stream_ended: bool) -> str:
        done = question.stream + 1 if stream_ended else question.stream
        width = 24
        filled = round(width * done / max(question.streams, 1))
        share = self.right / self.answered if self.answered else 0.0
        return (
            f"[{'#' * filled}{'-' * (width - filled)}] stream {question.stream + 1} of {question.streams}, "
            f"{self.answered} answered this run, {share:.0%} right, {self.unparsed} not understood"
        )

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()
