"""Several streams of a session at once (decision 0086): one worker thread per place, each taking one
open stream at a time, its own chat, until the session is over.

A worker claims an open stream nobody else works on (the session's open streams, read from the server),
takes its questions in order, and when the stream ends, goes on with the stream the server opened in its
place (the answer's `next`), or claims another. What it asks the model is limited by the run's AIMD limit
(runner/aimd.py): fewer at once after a 429, more again as they stop. The first failure stops every
worker (each finishes the question it is on) and is raised, so the command says it in one line; the
session keeps every answer stored, and the same command goes on with every open stream where it was.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from vtt_client.client import Session
from vtt_client.runner.aimd import Aimd
from vtt_client.runner.log import Progress
from vtt_client.types import AnswerResult, HistoryEntry, Question

# Seconds an idle worker waits before it looks again for an open stream without a worker (the session's
# later streams are being dealt, or every open stream has one), doubled up to the most.
IDLE_FIRST, IDLE_MOST = 0.2, 2.0

TakeOne = Callable[[Question, list[HistoryEntry]], tuple[AnswerResult, object]]


class Claims:
    """The streams being worked on: one worker each."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.held: set[int] = set()

    def take(self, stream: int) -> bool:
        with self._lock:
            if stream in self.held:
                return False
            self.held.add(stream)
            return True

    def drop(self, stream: int) -> None:
        with self._lock:
            self.held.discard(stream)

    def __len__(self) -> int:
        return len(self.held)


def run_streams(
    session: Session, one: TakeOne, *, concurrency: int, model: object, progress: Progress
) -> None:
    """Every question left in the session, up to `concurrency` streams at once."""
    limiter = Aimd(concurrency)
    if hasattr(model, "on_throttle"):
        model.on_throttle = limiter.throttled
    run = _Run(session, one, limiter, progress)
    if concurrency == 1:
        run.work()  # in this thread: as one question at a time always was
    else:
        workers = [threading.Thread(target=run.work, daemon=True) for _ in range(concurrency)]
        for worker in workers:
            worker.start()
        try:
            for worker in workers:
                while worker.is_alive():
                    worker.join(0.2)
        except KeyboardInterrupt:
            run.stop.set()
            raise
    if run.errors:
        raise run.errors[0]
    progress.done()


class _Run:
    def __init__(self, session: Session, one: TakeOne, limiter: Aimd, progress: Progress) -> None:
        self.session, self.one, self.limiter, self.progress = session, one, limiter, progress
        self.claims = Claims()
        self.stop = threading.Event()
        self.errors: list[BaseException] = []

    def work(self) -> None:
        try:
            self._work()
        except BaseException as error:  # the first failure stops the run; the command says it
            self.errors.append(error)
            self.stop.set()
            if threading.current_thread() is threading.main_thread():
                raise

    def _work(self) -> None:
        stream: int | None = None
        while not self.stop.is_set():
            if stream is None:
                stream = self._claim()
                if stream is None:
                    return
            question, history = self.session.stream_question(stream)
            if question is None:  # finished meanwhile (an answer stored before a crash)
                self.claims.drop(stream)
                stream = None
                continue
            result = self._answer(question, history)
            if result.stream_ended:
                self.claims.drop(stream)
                following = result.next
                stream = (
                    following.stream if following is not None and self.claims.take(following.stream) else None
                )
            if result.session_finished:
                self.stop.set()

    def _answer(self, question: Question, history: list[HistoryEntry]) -> AnswerResult:
        self.limiter.acquire()
        retried = False
        try:
            result, asked = self.one(question, history)
            retried = bool(getattr(asked, "retries", 0))
        finally:
            self.limiter.release(retried=retried)
        self.progress.answered_one(
            question,
            correct=result.correct,
            parsed=bool(getattr(asked, "parsed", True)),
            stream_ended=result.stream_ended,
            in_flight=len(self.claims),
        )
        return result

    def _claim(self) -> int | None:
        """An open stream without a worker, claimed; None once the session is over."""
        idle = IDLE_FIRST
        while not self.stop.is_set():
            opened = self.session.open_questions()
            if not opened:
                return None
            for question in opened:
                if self.claims.take(question.stream):
                    return question.stream
            self.stop.wait(idle)
            idle = min(IDLE_MOST, idle * 2)
        return None
