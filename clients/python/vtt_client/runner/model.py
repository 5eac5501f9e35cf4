"""The model a run asks: one backend per kind of server, named on the command line (`vtt take ... openai`).

A backend takes the chat in OpenAI's message format (what every server it talks to speaks) and returns a
Completion: the reply, the logprobs of its tokens when the server gives them, the tokens used and how many
times it had to try. What is worth trying again (a 429, a 5xx, a timeout, a dropped connection) is tried
again with exponential backoff and jitter, here, so every backend retries alike; anything else, and a
failure that outlasts the retries, is a ModelError that says in one sentence what to do.

To add a backend: a module with a class like `openai_chat.OpenAIChat` (its `add_arguments` for the
command line, `from_arguments`, `preflight`, `complete` and `describe`), and its name in BACKENDS.
"""

from __future__ import annotations

import argparse
import importlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from vtt_client.runner.replies import TokenLogprobs

T = TypeVar("T")

# Each backend by its name on the command line: "module:Class", imported only when it is used, so that
# `vtt --help` works without a backend's optional dependencies installed.
BACKENDS: dict[str, str] = {"openai": "vtt_client.runner.openai_chat:OpenAIChat"}


class ModelError(Exception):
    """The model could not answer: said for a person, with the exit status it gives the command."""

    exit_code = 1  # 1: the server failed (try again later); 2: the set-up is wrong (fix the command)


class ModelSetupError(ModelError):
    """A wrong model name, a refused key, a request the server does not take: trying again won't help."""

    exit_code = 2


@dataclass(frozen=True)
class Completion:
    text: str
    tokens: tuple[TokenLogprobs, ...] | None  # None: the server gave no logprobs
    tokens_in: int | None
    tokens_out: int | None
    retries: int  # the tries that failed before this one


class Backend(Protocol):
    def preflight(self) -> None:
        """Check what can be checked before a session is opened (the server answers, the model exists,
        the key is accepted): a ModelError here opens no session and uses no place on a scored test."""
        ...

    def complete(self, messages: Sequence[Mapping[str, Any]]) -> Completion: ...

    def describe(self) -> dict[str, Any]:
        """What a run's log records of the model: never a secret."""
        ...

    # Optional: a backend with an attribute `on_throttle` calls it on every 429 (too many requests), so
    # that a run sending several requests at once sends fewer (runner/aimd.py).


class BackendFactory(Protocol):
    help: str

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None: ...

    @classmethod
    def from_arguments(cls, args: argparse.Namespace, environ: Mapping[str, str]) -> Backend: ...


def backend_factory(name: str) -> BackendFactory:
    module, _, attribute = BACKENDS[name].partition(":")
    factory: BackendFactory = getattr(importlib.import_module(module), attribute)
    return factory


@dataclass(frozen=True)
class Failure:
    """A failure worth another try: what to say if it is the last one, and how long the server asked
    to be left alone (a 429's Retry-After)."""

    exhausted: str
    retry_after: float | None = None


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 6
    backoff: float = 1.0  # seconds before the first retry; doubled for each one after
    max_backoff: float = 30.0

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """The wait before retry number `retry` (0-based): exponential, capped, with jitter (half to all
        of it, so that runs that failed together do not come back together), and never shorter than the
        server's Retry-After."""
        delay = min(self.max_backoff, self.backoff * 2**retry) * (0.5 + random.random() / 2)
        return max(delay, retry_after or 0.0)


def with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    transient: Callable[[Exception], Failure | None],
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[T, int]:
    """`call()` and the number of failed tries before it answered. An exception that `transient` turns
    into a Failure is tried again, up to `policy.max_retries` times; any other is raised as it is."""
    for retry in range(policy.max_retries + 1):
        try:
            return call(), retry
        except Exception as error:
            failure = transient(error)
            if failure is None:
                raise
            if retry == policy.max_retries:
                raise ModelError(failure.exhausted) from error
            sleep(policy.delay(retry, failure.retry_after))
    raise AssertionError("unreachable")
