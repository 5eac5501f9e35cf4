"""What a vision system is shown of a question, serialized once per step of a plan.

A published plan never changes (truthing.published), and neither does what a system is shown of one of
its steps: the question, its English, the labels instantiated before it in its stream, the image's id
and size. Running DRF's nested serializers over that on every answer was the largest single cost of
answering (about a fifth of the endpoint's CPU, docs/benchmarks.md), so each step is built the first
time it is shown, as plain values in the shape of the serializers that document it (a test holds them
equal), and kept with its plan. Since every session is dealt streams of its own, a step is shown to one
session only, so building it must be cheap too: the serializers are not run at all. A response adds only
what depends on the session: the URL of the image, which works for that session only.

The kept bodies are shared by every response that shows the step: nothing may change them.
"""

from __future__ import annotations

import functools
from typing import Any

from django.urls import get_script_prefix, reverse

from evaluation.api import serializers as s
from evaluation.models import Session
from evaluation.selectors.scores import answers_given
from truthing.published import PlanStep, TestPlan
from vtt_site.cache import BoundedCache

# Keyed by the plan object itself (its id, kept alive by the entry): a plan built again after
# `truthing.published.plans_forget` gets its own entry instead of another plan's bodies.
# Every session has a plan of its own (its dealt streams): as many as the deals' plans kept.
_SHOWN: BoundedCache[tuple[TestPlan, list[dict[str, Any] | None]]] = BoundedCache(256)


def stream_history(*, session: Session, plan: TestPlan, step: PlanStep | None) -> list[dict[str, Any]]:
    """The stream's earlier steps with the system's answers and the truths (HistoryEntrySerializer's
    shape): exactly what the system was told in this stream, in the order it was told. `step` is the
    current step of an open stream, so every step before it in its stream is answered (a stream is
    answered in its order) and no truth is shown before its answer; nothing of another stream is."""
    if step is None or step.step_pos == 0:
        return []
    first = plan.streams[step.stream_pos].first_ordinal
    given = answers_given(session, first, step.ordinal)
    return [
        {
            "stream": earlier.stream_pos,
            "step": earlier.step_pos,
            "question": _kept(plan, earlier)["question"],
            "text": earlier.text,
            "answer": "yes" if yes else "no",
            "p_yes": p_yes,
            "truth": earlier.answer,
            "label": earlier.label or None,
        }
        for earlier, (yes, p_yes) in zip(plan.steps[first : step.ordinal], given, strict=True)
    ]


def question_shown(*, session_id: int, plan: TestPlan, step: PlanStep | None) -> dict[str, Any] | None:
    """The step as the session's system is shown it (CurrentQuestionSerializer's shape), or None."""
    if step is None:
        return None
    kept = _kept(plan, step)
    image = kept["image"]
    url = _image_url(get_script_prefix(), session_id, image["id"])
    return {**kept, "image": {**image, "url": url}}


@functools.lru_cache(maxsize=4096)
def _image_url(prefix: str, session_id: int, image_id: int) -> str:
    """The same for every question of a stream: reversed once (`prefix`, the script prefix reverse()
    puts first, is part of the key)."""
    return reverse("api:evaluation-session-image", args=[session_id, image_id])


def _kept(plan: TestPlan, step: PlanStep) -> dict[str, Any]:
    _, bodies = _SHOWN.get_or_build(id(plan), lambda: (plan, [None] * len(plan.steps)))
    body = bodies[step.ordinal]
    if body is None:
        # A step's labels are its predecessor's plus the label the predecessor made: build forward from
        # the last step of the stream that is kept (two requests at once may both build a body: the
        # same body, either one kept).
        first = plan.streams[step.stream_pos].first_ordinal
        start = step.ordinal
        while start > first and bodies[start - 1] is None:
            start -= 1
        for ordinal in range(start, step.ordinal + 1):
            before = bodies[ordinal - 1] if ordinal > first else None
            bodies[ordinal] = _built(plan, plan.steps[ordinal], before)
        body = bodies[step.ordinal]
    return body  # type: ignore[return-value]


def _built(plan: TestPlan, step: PlanStep, before: dict[str, Any] | None) -> dict[str, Any]:
    """CurrentQuestionSerializer's shape, written as plain values (tests/evaluation/test_answer_path.py
    holds it equal to the serializer's output for every step): since every session is dealt streams of
    its own, nearly every answer shows a step no response has shown before, and running the nested
    serializers on each was a third of the answer's CPU again (benchmarks.answer_throughput)."""
    stream = plan.streams[step.stream_pos]
    # The URL is the session's; the kept body has a placeholder that every response replaces.
    image = {"id": stream.test_image_id, "width": stream.width, "height": stream.height, "url": ""}
    labels: list[dict[str, Any]] = []
    if before is not None:
        previous = plan.steps[step.ordinal - 1]
        labels = before["labels"]
        if previous.label:
            made = {
                "label": previous.label,
                "step": previous.step_pos,
                # The question that made it is the step before's, shown already: kept once.
                "question": before["question"],
                "text": previous.text,
            }
            labels = [*labels, made]
    return {
        "stream": step.stream_pos,
        "streams": plan.streams_in_test,
        "step": step.step_pos,
        "image": image,
        "question": plain_question(step.question),
        "text": step.text,
        "labels": labels,
    }


# The keys of a structured question the API shows, in QuestionSerializer's order; what each holds.
QUESTION_KEYS = tuple(s.QuestionSerializer().fields)
LISTS = {"attributes", "excluding"}


def plain_question(question: dict[str, Any]) -> dict[str, Any]:
    """QuestionSerializer's output for a stored question, without the serializer: its documented keys
    that the question has, strings as strings, lists of strings, the region's box as floats."""
    shown: dict[str, Any] = {}
    for key in QUESTION_KEYS:
        if key not in question:
            continue
        value = question[key]
        if key == "region":
            shown[key] = {"id": str(value["id"]), "box": [float(v) for v in value["box"]]}
        elif key in LISTS:
            shown[key] = [str(v) for v in value]
        else:
            shown[key] = str(value)
    return shown
