"""A model's reply read as yes or no, and its probability of yes read from the token logprobs.

The reading is lenient about form and strict about meaning. Reasoning is dropped: everything up to the
last `</think>` (with or without its `<think>`, which some chat templates put in the prompt instead).
Markdown emphasis, quotes, case and punctuation do not matter, nor does a leading "Answer:". A reply
whose first word is yes or no is that answer ("Yes, there is a car"); otherwise a reply that says
only one of the two words, as a word, is that one ("There is no car." is no). Anything else, including a
reply with both words and one whose reasoning never ends, is unclear: None.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

_OPENING, _CLOSING = "<think>", "</think>"
_DECORATION = re.compile("[*_`\"'\u201c\u201d\u2018\u2019]")  # emphasis and quotes, curly ones too
_ANSWER_PREFIX = re.compile(r"^\s*(final\s+)?answer\s*[:\-]\s*", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")


def parse_reply(reply: str) -> bool | None:
    """True for yes, False for no, None when the reply does not say which (see the module's docstring)."""
    start = answer_start(reply)
    if start is None:
        return None
    text = _ANSWER_PREFIX.sub("", _DECORATION.sub("", reply[start:]))
    words = _WORD.findall(text.lower())
    if not words:
        return None
    if words[0] in ("yes", "no"):
        return words[0] == "yes"
    said = {word for word in words if word in ("yes", "no")}
    if len(said) == 1:
        return said == {"yes"}
    return None


def answer_start(reply: str) -> int | None:
    """Where the answer begins in a reply: after the last `</think>`; None while reasoning is still open
    (a reply cut off inside `<think>` gives no answer)."""
    lowered = reply.lower()
    if _CLOSING in lowered:
        return lowered.rindex(_CLOSING) + len(_CLOSING)
    return None if _OPENING in lowered else 0


@dataclass(frozen=True)
class TokenLogprobs:
    """One generated token with its own logprob and the server's top alternatives at its position."""

    token: str
    logprob: float
    top: Sequence[tuple[str, float]]


def p_yes_from(tokens: Sequence[TokenLogprobs]) -> float | None:
    """P(yes) / (P(yes) + P(no)) at the first token of the answer (the first token after any reasoning
    that reads as yes or no), summing the probability of every variant (" yes", "Yes", "YES", ...) among
    the alternatives. None when there is no such token, or neither word is among its alternatives."""
    token = _answer_token(tokens)
    if token is None:
        return None
    alternatives = dict(token.top)
    alternatives.setdefault(token.token, token.logprob)  # the chosen token, if the top list left it out
    mass = {"yes": 0.0, "no": 0.0}
    for text, logprob in alternatives.items():
        word = _as_answer_word(text)
        if word is not None:
            mass[word] += math.exp(logprob)
    total = mass["yes"] + mass["no"]
    if total <= 0.0:
        return None
    return mass["yes"] / total


def _answer_token(tokens: Sequence[TokenLogprobs]) -> TokenLogprobs | None:
    """The first token that reads as yes or no and starts after the reasoning ends."""
    start = answer_start("".join(token.token for token in tokens))  # in characters
    if start is None:
        return None
    offset = 0
    for token in tokens:
        if offset >= start and _as_answer_word(token.token) is not None:
            return token
        offset += len(token.token)
    return None


def _as_answer_word(token: str) -> str | None:
    word = _DECORATION.sub("", token).strip().strip(".,:;!?").lower()
    return word if word in ("yes", "no") else None


def agrees(answer: bool, p_yes: float) -> bool:
    """Whether a probability of yes agrees with an answer: above 0.5 for yes, below for no, 0.5 for
    either (the platform refuses a p_yes that contradicts its answer)."""
    return p_yes >= 0.5 if answer else p_yes <= 0.5
