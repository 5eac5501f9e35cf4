"""The `openai` backend: any server that speaks OpenAI's chat completions (vLLM, Ollama, hosted APIs),
through the openai SDK (`pip install 'vtt-client[openai]'`).

Each request asks for temperature 0 and a fixed seed by default, and for the logprobs of the reply's
tokens with their top 5 alternatives, from which the runner reads the probability of yes. A server that
refuses logprobs (a 400 that names them) is asked again without them, and from then on. The SDK's own
retries are off: the runner retries (model.with_retries), so that every backend retries alike and the
log counts every retry.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from vtt_client.runner.model import (
    Completion,
    Failure,
    ModelError,
    ModelSetupError,
    RetryPolicy,
    with_retries,
)
from vtt_client.runner.replies import TokenLogprobs

try:  # an optional dependency: without it the command line still lists the backend, which says so when used
    import openai
    from openai.types.chat import ChatCompletion

    HAVE_SDK = True
except ImportError:
    HAVE_SDK = False

TOP_LOGPROBS = 5
RETRY_STATUS = {408, 409, 429}  # and every 5xx


class OpenAIChat:
    help = "a server that speaks OpenAI's chat completions (vLLM, Ollama, a hosted API)"

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--base-url", required=True, help="the server's API, e.g. http://localhost:8000/v1 (vLLM)"
        )
        parser.add_argument("--model", required=True, help="the model's name on that server")
        parser.add_argument(
            "--api-key-env",
            default="OPENAI_API_KEY",
            metavar="NAME",
            help="the environment variable that holds the API key (default OPENAI_API_KEY; a local "
            "server without keys takes any text)",
        )
        parser.add_argument(
            "--no-logprobs", action="store_true", help="do not ask for logprobs (no p_yes is given)"
        )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace, environ: Mapping[str, str]) -> OpenAIChat:
        key = environ.get(args.api_key_env, "")
        if not key:
            raise ModelSetupError(
                f"Set {args.api_key_env} to the model server's API key (a local server without keys "
                f"takes any text: export {args.api_key_env}=none)."
            )
        return cls(
            base_url=args.base_url,
            model=args.model,
            api_key=key,
            seed=args.seed,
            temperature=args.temperature,
            timeout=args.timeout,
            policy=RetryPolicy(max_retries=args.max_retries, backoff=args.backoff),
            logprobs=not args.no_logprobs,
        )

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str,
        seed: int | None = 0,
        temperature: float = 0.0,
        timeout: float = 120.0,
        policy: RetryPolicy | None = None,
        logprobs: bool = True,
    ) -> None:
        if not HAVE_SDK:
            raise ModelSetupError(
                "The openai backend needs the client's extra: pip install 'vtt-client[openai]'."
            )
        self.base_url, self.model, self.seed, self.temperature = base_url, model, seed, temperature
        self.timeout, self.logprobs = timeout, logprobs
        self.policy = policy or RetryPolicy()
        # Told of every 429 at once (the run's Aimd lowers how many requests it sends at a time).
        self.on_throttle: Callable[[], None] | None = None
        self.client = openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "openai",
            "base_url": self.base_url,
            "model": self.model,
            "seed": self.seed,
            "temperature": self.temperature,
            "timeout": self.timeout,
            "logprobs": self.logprobs,
        }

    def preflight(self) -> None:
        """Before a session is opened (issue 46, item 5): the server answers, takes the key and serves
        the model, asked once through its model list. Nothing listening is a set-up to fix at once, not
        a lost connection to wait out; a server without a model list is left to the first question."""
        try:
            served = sorted(model.id for model in self.client.models.list())
        except openai.APITimeoutError:
            raise ModelError(
                f"The model server at {self.base_url} did not answer within {self.timeout:g} s."
            ) from None
        except openai.APIConnectionError:
            raise ModelSetupError(
                f"Nothing answers at {self.base_url}: start the model server, or check --base-url."
            ) from None
        except (openai.AuthenticationError, openai.PermissionDeniedError) as error:
            raise ModelSetupError(
                f"The model server at {self.base_url} refused the API key ({error.status_code})."
            ) from None
        except openai.APIStatusError as error:
            if error.status_code >= 500:
                raise ModelError(
                    f"The model server at {self.base_url} failed ({error.status_code}: {_said(error)})."
                ) from None
            return  # no model list here (404, 405): the first question checks the rest
        if self.model not in served:
            raise ModelSetupError(
                f"The model server at {self.base_url} has no model {self.model!r} "
                f"(it serves: {', '.join(served) or 'none'})."
            )

    def complete(self, messages: Sequence[Mapping[str, Any]]) -> Completion:
        try:
            response, retries = with_retries(lambda: self._create(messages), self.policy, self._transient)
        except openai.NotFoundError:
            raise ModelSetupError(self._not_found()) from None
        except (openai.AuthenticationError, openai.PermissionDeniedError) as error:
            raise ModelSetupError(
                f"The model server at {self.base_url} refused the API key ({error.status_code})."
            ) from None
        except openai.APIStatusError as error:
            failure = ModelSetupError if error.status_code < 500 else ModelError
            raise failure(
                f"The model server at {self.base_url} refused the request ({error.status_code}: "
                f"{_said(error)})."
            ) from None
        return _completion(response, retries)

    def _request(self, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if self.seed is not None:
            request["seed"] = self.seed
        if self.logprobs:
            request |= {"logprobs": True, "top_logprobs": TOP_LOGPROBS}
        return request

    def _create(self, messages: Sequence[Mapping[str, Any]]) -> ChatCompletion:
        try:
            return self._send(messages)
        except openai.BadRequestError as error:
            if not (self.logprobs and "logprob" in _said(error).lower()):
                raise
            self.logprobs = False  # this server gives none: ask without them, now and from now on
            return self._send(messages)

    def _send(self, messages: Sequence[Mapping[str, Any]]) -> ChatCompletion:
        """The request as it is, through the SDK's documented `client.post` (its retries off, its errors
        as create()'s): the body is the wire format already, and create()'s walk of every message to
        transform its parameters was half of the runner's CPU per question (54 ms at the demo test's
        stream lengths: benchmarks/stream_concurrency.py, decision 0086)."""
        return self.client.post("/chat/completions", cast_to=ChatCompletion, body=self._request(messages))

    def _transient(self, error: Exception) -> Failure | None:
        tries = self.policy.max_retries + 1
        if isinstance(error, openai.APITimeoutError):
            return Failure(
                f"The model server at {self.base_url} did not answer within {self.timeout:g} s ({tries} tries)."
            )
        if isinstance(error, openai.APIConnectionError):
            return Failure(f"Could not reach the model server at {self.base_url} ({tries} tries).")
        if isinstance(error, openai.APIStatusError) and (
            error.status_code in RETRY_STATUS or error.status_code >= 500
        ):
            if error.status_code == 429 and self.on_throttle is not None:
                self.on_throttle()
            retry_after = None
            with contextlib.suppress(TypeError, ValueError):
                retry_after = float(error.response.headers.get("retry-after", ""))
            return Failure(
                f"The model server at {self.base_url} kept answering {error.status_code} ({tries} tries): "
                f"{_said(error)}",
                retry_after,
            )
        return None

    def _not_found(self) -> str:
        """A 404: most often a model the server does not serve (say which it does), or a base URL
        that is not the API's."""
        try:
            served = sorted(model.id for model in self.client.models.list())
        except Exception:
            return (
                f"The model server at {self.base_url} answered 404 for the model {self.model!r}: check "
                f"--model, and --base-url (an OpenAI-compatible API's address usually ends in /v1)."
            )
        return (
            f"The model server at {self.base_url} has no model {self.model!r} "
            f"(it serves: {', '.join(served) or 'none'})."
        )


def _completion(response: ChatCompletion, retries: int) -> Completion:
    choice = response.choices[0] if response.choices else None
    text = (choice.message.content or "") if choice is not None else ""
    tokens = None
    if choice is not None and choice.logprobs is not None and choice.logprobs.content:
        tokens = tuple(
            TokenLogprobs(
                token.token,
                token.logprob,
                tuple((top.token, top.logprob) for top in token.top_logprobs or ()),
            )
            for token in choice.logprobs.content
        )
    usage = response.usage
    return Completion(
        text=text,
        tokens=tokens,
        tokens_in=usage.prompt_tokens if usage is not None else None,
        tokens_out=usage.completion_tokens if usage is not None else None,
        retries=retries,
    )


def _said(error: Exception) -> str:
    """What the server said about a failed request, in one short line."""
    message = getattr(error, "body", None)
    if isinstance(message, dict):
        inner = message.get("error", message)
        message = inner.get("message") if isinstance(inner, dict) else inner
    text = " ".join(str(message or getattr(error, "message", "") or error).split())
    return text[:200]
