"""HTTP: authentication, retries with backoff, enrol-or-resume, question iteration, progress."""

from __future__ import annotations

import contextlib
import random
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx

from vtt_client.types import (
    AnswerResult,
    HistoryEntry,
    Image,
    Question,
    Score,
    SystemScores,
    history_entry_from,
    question_from,
    score_from,
    system_scores_from,
)

RETRY_STATUS = {429, 500, 502, 503, 504}


class ApiError(Exception):
    """A 4xx answer (or a 5xx after the retries): `code`, `message` and `fields` as the API gives them."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        fields: dict[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.fields = status, code, message, fields or {}
        self.retry_after = retry_after


class UnsupportedServer(Exception):
    """The platform does not send something this client needs: it is older than the client."""


class Client:
    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 30.0,
        retries: int = 6,
        backoff: float = 0.25,
        max_backoff: float = 10.0,
        progress: bool | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.http = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Token {token}", "Accept": "application/json"},
            timeout=timeout,
            transport=transport,
        )
        self.retries, self.backoff, self.max_backoff = retries, backoff, max_backoff
        self.progress = sys.stderr.isatty() if progress is None else progress
        self.requests = 0

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- transport --------------------------------------------------------------------------------

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One call, retried on connection errors, 429 and 5xx with exponential backoff and jitter
        (a 429's Retry-After is honoured). Every call of the API is safe to repeat: answers are
        idempotent on the server."""
        for attempt in range(self.retries + 1):
            self.requests += 1
            try:
                response = self.http.request(method, path, **kwargs)
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
                self._sleep(attempt, None)
                continue
            if response.status_code in RETRY_STATUS and attempt < self.retries:
                self._sleep(attempt, response.headers.get("Retry-After"))
                continue
            if response.status_code >= 400:
                try:
                    body = response.json()
                except ValueError:
                    body = {}
                retry_after = None
                with contextlib.suppress(TypeError, ValueError):
                    retry_after = float(response.headers.get("Retry-After"))
                raise ApiError(
                    response.status_code,
                    body.get("code", "http_error"),
                    body.get("message", response.text[:200]),
                    body.get("fields"),
                    retry_after,
                )
            return response
        raise AssertionError("unreachable")

    def _sleep(self, attempt: int, retry_after: str | None) -> None:
        delay = min(self.max_backoff, self.backoff * 2**attempt) * (0.5 + random.random() / 2)
        if retry_after:
            with contextlib.suppress(ValueError):
                delay = max(delay, float(retry_after))
        time.sleep(delay)

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, params=params or None).json()

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.request("POST", path, json=body).json()

    # --- the API ----------------------------------------------------------------------------------

    def tests(self) -> list[dict[str, Any]]:
        return self.get("/api/v1/evaluation/tests/")["results"]

    def systems(self) -> list[dict[str, Any]]:
        """The systems the token may act as or see: a token scoped to a system sees that one only."""
        return self.get("/api/v1/evaluation/systems/")["results"]

    def system(self, system_id: int) -> dict[str, Any]:
        """A system as registered: `name`, `shown` ("image" or "text": pixels, or text only), ..."""
        return self.get(f"/api/v1/evaluation/systems/{system_id}/")

    def system_scores(self, system_id: int) -> SystemScores:
        """A system's page: the scores of its finished sessions, stream by stream where that cannot help
        to take a test (a public system or a baseline for anyone; a private one for its owner)."""
        return system_scores_from(self.get(f"/api/v1/evaluation/systems/{system_id}/scores/"))

    def session(self, test_id: int, system: int | None = None) -> Session:
        """Enrol in the test, or resume the session the system has on it (the server keeps the
        position: a crashed run continues where it stopped)."""
        body = {} if system is None else {"system": system}
        try:
            data = self.post(f"/api/v1/evaluation/tests/{test_id}/sessions/", body)
        except ApiError as error:
            if error.code != "already_enrolled":
                raise
            found = [
                s
                for s in self.get("/api/v1/evaluation/sessions/", test=test_id)["results"]
                if system is None or s["system"] == system
            ]
            if not found:
                raise
            data = found[0]
        return Session(self, data)


class Session:
    def __init__(self, client: Client, data: dict[str, Any]) -> None:
        self.client, self.id, self.data = client, data["id"], data
        self._next: dict[str, Any] | None = None
        self._fresh = False
        self._images: dict[int, bytes] = {}
        self.answered = data.get("answered", 0)
        self.right = 0
        # How many streams may be open at once (an older platform: one); the lock keeps the counts
        # right when several threads answer in different streams.
        self.open_streams = data.get("open_streams", 1)
        self._lock = threading.Lock()

    def current(self) -> Question | None:
        if not self._fresh:
            body = self._question_when_dealt()
            self._next, self._fresh = body["current"], True
            self.answered = body["answered"]
        return question_from(self._next, self) if self._next is not None else None

    def history(self) -> list[HistoryEntry]:
        """The current stream's earlier answered steps, in order, as the server recorded them (empty at a
        stream's first step and once the session is over). Read afresh: after a crash, what a system was
        asked and told in this stream can be rebuilt from here (with `current()`, which this refreshes)."""
        body = self._question_when_dealt()
        self._next, self._fresh = body["current"], True
        self.answered = body["answered"]
        if "history" not in body:
            raise UnsupportedServer(
                "The platform does not send a stream's history: it is older than this client."
            )
        return [history_entry_from(entry) for entry in body["history"]]

    def open_questions(self) -> list[Question]:
        """The current question of every open stream, in the order of the streams (decision 0085): a
        system may work on each of them at once, each stream in its order. Empty once the session is
        over."""
        body = self._question_when_dealt()
        with self._lock:
            self.answered = body["answered"]
            self.open_streams = body.get("open_streams", self.open_streams)
        opened = body.get("open", [body["current"]] if body["current"] is not None else [])
        return [question_from(each, self) for each in opened]

    def stream_question(self, stream: int) -> tuple[Question | None, list[HistoryEntry]]:
        """An open stream's current question and its earlier answered steps, read afresh (what a
        system was asked and told in that stream, to rebuild its conversation after a crash); (None,
        []) when the stream is not open (finished, or not opened yet)."""
        try:
            body = self._question_when_dealt(stream)
        except ApiError as error:
            if error.code != "stream_not_open":
                raise
            return None, []
        if body["current"] is None:
            return None, []
        return question_from(body["current"], self), [history_entry_from(e) for e in body["history"]]

    def _question_when_dealt(self, stream: int | None = None, patience: float = 600.0) -> dict[str, Any]:
        """The current question (of `stream`, if given); while the session's own streams are still
        being prepared (409 `session_dealing`), wait as the server's Retry-After says, up to `patience`
        seconds."""
        waited = 0.0
        params = {} if stream is None else {"stream": stream}
        while True:
            try:
                return self.client.get(f"/api/v1/evaluation/sessions/{self.id}/question/", **params)
            except ApiError as error:
                if error.code != "session_dealing" or waited >= patience:
                    raise
                delay = error.retry_after or 1.0
                time.sleep(delay)
                waited += delay

    def questions(self) -> Iterator[Question]:
        """Each question in turn until the test ends; answer each with `answer` before the next."""
        while True:
            question = self.current()
            if question is None:
                self._progress(None, done=True)
                return
            yield question
            if self._fresh and self._same(question):
                raise RuntimeError("Answer each question (session.answer) before asking for the next one.")

    def _same(self, question: Question) -> bool:
        """Whether the question the server holds next is still `question` (none held: no)."""
        pending = self._next
        if pending is None:
            return False
        return (pending["stream"], pending["step"]) == (question.stream, question.step)

    def answer(self, question: Question, yes: bool, p_yes: float | None = None) -> AnswerResult:
        """Answer `question`; `p_yes`, the system's probability that the answer is yes, is stored beside
        the answer if given (it must agree with it: above 0.5 for yes, below for no, 0.5 for either)."""
        sent: dict[str, Any] = {
            "stream": question.stream,
            "step": question.step,
            "answer": "yes" if yes else "no",
        }
        if p_yes is not None:
            sent["p_yes"] = p_yes
        body = self.client.post(f"/api/v1/evaluation/sessions/{self.id}/answers/", sent)
        with self._lock:
            # No next question before the end: the session's later streams are still being dealt, or
            # the other open streams are read with the question, so the next current() asks the server
            # (and waits out its 409 session_dealing).
            self._next = body["next"]
            self._fresh = body["next"] is not None or body["session_finished"]
            self.answered += 1
            self.right += body["correct"]
            if body["stream_ended"]:
                self._images.pop(question.image.id, None)
            self._progress(question)
        return AnswerResult(
            answer=body["answer"] == "yes",
            correct_answer=body["correct_answer"] == "yes",
            correct=body["correct"],
            label=body["label"],
            stream_ended=body["stream_ended"],
            session_finished=body["session_finished"],
            p_yes=body.get("p_yes"),
            next=question_from(body["next"], self) if body["next"] is not None else None,
        )

    def image_bytes(self, image: Image) -> bytes:
        kept = self._images.get(image.id)
        if kept is None:
            # A platform whose images are in a bucket answers with a redirect to a presigned URL of the
            # store; httpx drops the Authorization header when it leaves the platform's address.
            kept = self.client.request("GET", image.url, follow_redirects=True).content
            with self._lock:
                self._images[image.id] = kept
        return kept

    def score(self) -> Score:
        return score_from(self.client.get(f"/api/v1/evaluation/sessions/{self.id}/score/"))

    def results(self) -> list[dict[str, Any]]:
        return self.client.get(f"/api/v1/evaluation/sessions/{self.id}/results/")

    def _progress(self, question: Question | None, done: bool = False) -> None:
        if not self.client.progress:
            return
        if question is not None:
            width = 30
            filled = int(width * (question.stream + 1) / max(question.streams, 1))
            share = self.right / self.answered if self.answered else 0.0
            sys.stderr.write(
                f"\r[{'#' * filled}{'-' * (width - filled)}] stream {question.stream + 1}/{question.streams}"
                f"  {self.answered} answered  {share:.0%} right "
            )
        if done:
            sys.stderr.write("\n")
        sys.stderr.flush()
