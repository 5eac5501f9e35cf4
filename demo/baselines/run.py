"""Take a test through the HTTP API with the Python client (Django-free): one function for every
baseline, which differ only in how they decide."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from vtt_client import Client, Question

Decide = Callable[[Question], bool]


def always_yes() -> Decide:
    return lambda question: True


def random_answers(seed: int) -> Decide:
    rng = random.Random(seed)
    return lambda question: rng.random() < 0.5


def blind_prior(p_of: Callable[[int, int], float | None]) -> Decide:
    """Yes exactly when the engine's p for this question (from the history and the training statistics
    only) is above 0.5 (docs/method.md section 8)."""

    def decide(question: Question) -> bool:
        p = p_of(question.stream, question.step)
        return p is not None and p > 0.5

    return decide


def seeing(model: Any) -> Decide:
    def decide(question: Question) -> bool:
        return model.answer(
            question.raw["question"],
            question.raw["labels"],
            question.pil_image(),
            question.image.width,
            question.image.height,
        )

    return decide


def take_test(
    base_url: str, token: str, test_id: int, decide: Decide, progress: bool = False
) -> dict[str, Any]:
    started = time.monotonic()
    with Client(base_url, token, progress=progress) as client:
        session = client.session(test_id)
        questions = 0
        for question in session.questions():
            session.answer(question, decide(question))
            questions += 1
        score = session.score()
        return {
            "session": session.id,
            "questions": questions,
            "requests": client.requests,
            "seconds": time.monotonic() - started,
            "accuracy": score.accuracy,
        }
