"""Take a test through the HTTP API with the Python client (Django-free): one function for every
baseline, which differ only in how they decide."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from vtt_client import Client, Question

# A baseline's answer, and its probability of yes where it has one.
Decision = tuple[bool, float | None]
Decide = Callable[[Question], Decision]


def always_yes() -> Decide:
    return lambda question: (True, None)


def random_answers(seed: int) -> Decide:
    rng = random.Random(seed)
    return lambda question: (rng.random() < 0.5, None)


def blind_prior(p_of: Callable[[int, int], float | None]) -> Decide:
    """Yes exactly when the engine's p for this question (from the history and the training statistics
    only) is above 0.5 (docs/method.md section 8), and that p as its probability of yes: the test's own
    calibration, scored like any system's probabilities."""

    def decide(question: Question) -> Decision:
        p = p_of(question.stream, question.step)
        return (p is not None and p > 0.5), p

    return decide


def seeing(model: Any) -> Decide:
    def decide(question: Question) -> Decision:
        yes = model.answer(
            question.raw["question"],
            question.raw["labels"],
            question.pil_image(),
            question.image.width,
            question.image.height,
        )
        return yes, None

    return decide


def take_test(
    base_url: str, token: str, test_id: int, decide: Decide, progress: bool = False
) -> dict[str, Any]:
    started = time.monotonic()
    with Client(base_url, token, progress=progress) as client:
        session = client.session(test_id)
        questions = 0
        for question in session.questions():
            yes, p_yes = decide(question)
            session.answer(question, yes, p_yes)
            questions += 1
        score = session.score()
        return {
            "session": session.id,
            "questions": questions,
            "requests": client.requests,
            "seconds": time.monotonic() - started,
            "accuracy": score.accuracy,
        }
