"""A chat-completions server that speaks OpenAI's protocol, for the model runner's tests (test_runner*.py).

It is a real HTTP server (the standard library's, in a thread): the runner reaches it through the openai
SDK over a socket, as it would reach vLLM or Ollama. `POST /v1/chat/completions` answers as OpenAI does
(choices[0].message.content, logprobs.content[i].top_logprobs, usage) and `GET /v1/models` lists its one
model; a wrong model is a 404 and a wrong key a 401, with OpenAI's error body.

Given what the test knows of each question (`Expected`, found by the question's text, which build_test
makes unique), it checks every request (chat_checks.py: the image and where its regions are drawn, the
stream's earlier turns with their truths, the words) and records what is wrong in `violations`.

It answers by a rule that needs the region: yes when the designated region's centre is in the left half
of the image, read from the red pixels (or from the words when the region is not drawn); a question with
no region, or a blind run shown no region, gets yes when its text's SHA-256 starts with an even byte.
Each reply comes in one of a few forms ("Yes.", "**No**", "  yes", "Answer: no", and reasoning in
<think> that says the opposite first), with the logprobs of its tokens: at the answer's token the
alternatives give `p_given[text]` as P(yes) / (P(yes) + P(no)), split over variants (" yes", "Yes").
And it misbehaves on purpose when told: by the ordinal of a request (400, 429, 500, an unclear reply, or a
reply later than the client waits), always for some questions (unclear), for every request (a hang),
after a number of answers (it drops every connection, as a server that died), or on logprobs (a 400).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.clients.chat_checks import (
    Corners,
    Expected,
    corners_in_words,
    image_of,
    parts,
    question_turn_text,
    questions_in,
    red_corners,
    request_problems,
)

GARBAGE = "I would rather describe the weather."


def rule(text: str, region: Corners | None, width: int) -> str:
    """The server's answer: by the region's centre when it knows the region, else by the text's hash."""
    if region is not None:
        return "yes" if (region[0] + region[2]) / 2 < width / 2 else "no"
    return "yes" if hashlib.sha256(text.encode()).digest()[0] % 2 == 0 else "no"


def intended_p_yes(text: str, answer: str) -> float:
    """The probability of yes this server's logprobs give for a question: on the side of its answer."""
    fraction = int(hashlib.sha256(text.encode()).hexdigest()[2:6], 16) / 0xFFFF
    return round(0.55 + 0.4 * fraction if answer == "yes" else 0.05 + 0.4 * fraction, 6)


@dataclass
class ChatServer:
    expected: dict[str, Expected] = field(default_factory=dict)
    model: str = "test-vlm"
    api_key: str = "sk-test"
    words: bool = True  # the run gives regions in words
    drawn: bool = True  # ... and draws them on the image
    blind: bool = False
    faults: dict[int, str] = field(
        default_factory=dict
    )  # request ordinal (1-based) -> 400|429|500|garbage|slow
    garbage_for: set[str] = field(default_factory=set)  # questions always answered unclearly
    slow_seconds: float = 0.0  # how late a "slow" reply, or every reply in a hang, comes
    hang: bool = False
    die_after: int | None = None  # answers given before it drops every connection
    refuse_logprobs: bool = False
    # A model server's speed (benchmarks/stream_concurrency.py): every reply takes `latency` seconds, and at
    # most `capacity` requests are served at once (the rest wait their turn, as on a busy vLLM).
    latency: float = 0.0
    capacity: int | None = None

    violations: list[str] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)  # every completion request's body
    answered: dict[str, str] = field(default_factory=dict)  # what its replies amount to, per question
    p_given: dict[str, float] = field(default_factory=dict)
    usage: dict[str, list[int]] = field(default_factory=dict)  # per question: tokens in, out (summed)
    first_prompt: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # per question, as sent
    ordinal: int = 0
    answers: int = 0

    def start(self) -> ChatServer:
        self.dead = False
        self._lock = threading.Lock()
        self._serving = threading.BoundedSemaphore(self.capacity) if self.capacity else None
        self._http = _Server(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    def revive(self) -> None:
        """Back from the dead, answering again."""
        self.die_after, self.dead = None, False

    # --- one completion request -----------------------------------------------------------------

    def complete(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        """(status, JSON body, headers) for a request that passed the key and model checks."""
        if self._serving is None:
            return self._complete(body)
        with self._serving:
            started = time.monotonic()
            reply = self._complete(body)
            time.sleep(max(0.0, self.latency - (time.monotonic() - started)))
            return reply

    def _complete(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        with self._lock:
            self.ordinal += 1
            ordinal = self.ordinal
            self.requests.append(body)
        fault = self.faults.get(ordinal)
        if fault == "429":
            return 429, _error("Rate limit reached.", "rate_limit_exceeded"), {"Retry-After": "0"}
        if fault == "500":
            return 500, _error("The server had an error.", "server_error"), {}
        if fault == "400":
            return 400, _error("This model does not take images.", "invalid_request_error"), {}
        if fault == "slow":
            time.sleep(self.slow_seconds)  # past the client's timeout: it has gone, nothing is recorded
            return 200, _completion(self.model, "Yes.", [], 0, False), {}
        if self.refuse_logprobs and body.get("logprobs"):
            return 400, _error("logprobs are not supported by this model", "invalid_request_error"), {}
        text, retry = self._check(body)
        answer = self._answer(text, body)
        unclear = fault == "garbage" or text in self.garbage_for
        reply, tokens = _reply(answer, ordinal, unclear, self.p_given.get(text, 0.5))
        with self._lock:
            if not unclear or retry:
                self.answered[text] = "no" if unclear else answer
            used = self.usage.setdefault(text, [0, 0])
            tokens_in = _tokens_in(body)
            used[0] += tokens_in
            used[1] += len(tokens)
            self.answers += 1
        return 200, _completion(self.model, reply, tokens, tokens_in, bool(body.get("logprobs"))), {}

    def _answer(self, text: str, body: dict[str, Any]) -> str:
        expected = self.expected.get(text)
        if expected is None:
            return rule(text, None, 0)
        region = None
        if self.drawn and not self.blind:
            region = red_corners(image_of(body))
        elif self.words:
            region = corners_in_words(question_turn_text(body))
        answer = rule(text, region, expected.size[0])
        self.p_given.setdefault(text, intended_p_yes(text, answer))
        return answer

    # --- the checks -----------------------------------------------------------------------------

    def _check(self, body: dict[str, Any]) -> tuple[str, bool]:
        """The current question's text and whether this is the strict retry; each thing wrong with the
        request goes to `violations`."""
        messages = body.get("messages", [])
        retry = len(messages) >= 3 and messages[-2]["role"] == "assistant" and not questions_in(messages[-1])
        turn = messages[-3] if retry else messages[-1]
        found = questions_in(turn)
        text = found[0] if found else ""
        if text and not retry and text not in self.first_prompt:
            self.first_prompt[text] = messages
        if text in self.expected:
            problems = request_problems(self, body, messages, turn, self.expected[text], retry)
            self.violations += [f"{text}: {problem}" for problem in problems]
        return text, retry


def _tokens_in(body: dict[str, Any]) -> int:
    """A made-up but fixed count: a token per four characters of text, 85 per image."""
    count = 0
    for message in body.get("messages", []):
        for part in parts(message):
            count += 85 if part.get("type") == "image_url" else len(part.get("text", "")) // 4
    return count


# --- writing a reply --------------------------------------------------------------------------------

FORMS = ["{A}.", "**{A}**", "  {a}", "Answer: {a}", "<think>{o}? {o}.</think>\n{A}"]


def _reply(answer: str, ordinal: int, unclear: bool, p_yes: float) -> tuple[str, list[dict[str, Any]]]:
    """The reply and its tokens' logprobs: at the answer's token, alternatives that give p_yes; at a
    decoy inside the reasoning, alternatives that give the opposite."""
    if unclear:
        return GARBAGE, [_token(piece, [(piece, -0.01)]) for piece in _split(GARBAGE)]
    other = "no" if answer == "yes" else "yes"
    reply = FORMS[ordinal % len(FORMS)].format(A=answer.capitalize(), a=answer, o=other)
    end = reply.index("</think>") + len("</think>") if "</think>" in reply else 0
    tokens, offset, found = [], 0, False
    for piece in _split(reply):
        if offset >= end and not found and _word(piece) == answer:
            top, found = _alternatives(piece, p_yes), True
        elif offset < end and _word(piece) == other:
            top = _alternatives(piece, 1 - p_yes)
        else:
            top = [(piece, -0.01)]
        tokens.append(_token(piece, top))
        offset += len(piece)
    return reply, tokens


def _word(piece: str) -> str:
    return piece.strip().strip("*.:").lower()


def _split(reply: str) -> list[str]:
    pieces = re.findall(r"\s*(?:\w+|[^\w\s]+)", reply)
    assert "".join(pieces) == reply, (pieces, reply)
    return pieces


def _alternatives(chosen: str, p_yes: float) -> list[tuple[str, float]]:
    """Five alternatives: yes and no, two variants each (the chosen token is one), and "Maybe"."""
    mass = {"yes": 0.95 * p_yes, "no": 0.95 * (1 - p_yes)}
    top = []
    for word, variants in (("yes", ["Yes", " yes"]), ("no", ["No", " no"])):
        if _word(chosen) == word and chosen not in variants:
            variants[0] = chosen
        top += [(variants[0], math.log(0.6 * mass[word])), (variants[1], math.log(0.4 * mass[word]))]
    return [*top, ("Maybe", math.log(0.05))]


def _token(token: str, top: list[tuple[str, float]]) -> dict[str, Any]:
    own = dict(top).get(token, -0.01)
    return {
        "token": token,
        "logprob": own,
        "bytes": list(token.encode()),
        "top_logprobs": [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in top],
    }


def _completion(
    model: str, reply: str, tokens: list[dict[str, Any]], tokens_in: int, logprobs: bool
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply},
                "logprobs": {"content": tokens, "refusal": None} if logprobs else None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": len(tokens),
            "total_tokens": tokens_in + len(tokens),
        },
    }


def _error(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": code, "param": None, "code": code}}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # many clients connecting at once are queued, not refused


def _handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def handle(self) -> None:
            # A client that stopped waiting (a timeout) is not answered.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                super().handle()

        def do_GET(self) -> None:
            if self.path.rstrip("/") != "/v1/models":
                return self._send(404, _error("Not found.", "not_found"))
            if not self._authorised():
                return None
            self._send(
                200,
                {
                    "object": "list",
                    "data": [{"id": server.model, "object": "model", "created": 0, "owned_by": "test"}],
                },
            )

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path.rstrip("/") != "/v1/chat/completions":
                return self._send(404, _error("Not found.", "not_found"))
            if server.hang:
                time.sleep(server.slow_seconds)  # a server that never answers in time
                self.close_connection = True
                return None
            if server.dead or (server.die_after is not None and server.answers >= server.die_after):
                server.dead = True
                self.close_connection = True
                return None  # a dead server: the connection closes with no answer
            if not self._authorised():
                return None
            if body.get("model") != server.model:
                message = f"The model `{body.get('model')}` does not exist."
                return self._send(404, _error(message, "model_not_found"))
            status, payload, headers = server.complete(body)
            self._send(status, payload, headers)

        def _authorised(self) -> bool:
            if self.headers.get("Authorization") == f"Bearer {server.api_key}":
                return True
            self._send(401, _error("Incorrect API key provided.", "invalid_api_key"))
            return False

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler
