"""What a vision system is shown of a question, serialized once per step of a plan.

A published plan never changes (truthing.published), and neither does what a system is shown of one of
its steps: the question, its English, the labels instantiated before it in its stream, the image's id
and size. Running DRF's nested serializers over that on every answer was the largest single cost of
answering (about a fifth of the endpoint's CPU, docs/benchmarks.md), so each step is serialized the
first time it is shown, through the same serializers that document it, and kept with its plan. A
response adds only what depends on the session: the URL of the image, which works for that session
only.

The kept bodies are shared by every response that shows the step: nothing may change them.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from evaluation.api import serializers as s
from truthing.published import PlanStep, TestPlan
from vtt_site.cache import BoundedCache

# Keyed by the plan object itself (its id, kept alive by the entry): a plan built again after
# `truthing.published.plans_forget` gets its own entry instead of another plan's bodies.
_SHOWN: BoundedCache[tuple[TestPlan, list[dict[str, Any] | None]]] = BoundedCache(64)


def step_at(plan: TestPlan, ordinal: int) -> PlanStep | None:
    return plan.steps[ordinal] if ordinal < len(plan.steps) else None


def question_shown(*, session_id: int, plan: TestPlan, step: PlanStep | None) -> dict[str, Any] | None:
    """The step as the session's system is shown it (CurrentQuestionSerializer's shape), or None."""
    if step is None:
        return None
    kept = _kept(plan, step)
    image = kept["image"]
    url = reverse("api:evaluation-session-image", args=[session_id, image["id"]])
    return {**kept, "image": {**image, "url": url}}


def _kept(plan: TestPlan, step: PlanStep) -> dict[str, Any]:
    _, bodies = _SHOWN.get_or_build(id(plan), lambda: (plan, [None] * len(plan.steps)))
    body = bodies[step.ordinal]
    if body is None:  # two requests at once may both build it: the same body, either one kept
        body = bodies[step.ordinal] = _serialized(plan, step)
    return body


def _serialized(plan: TestPlan, step: PlanStep) -> dict[str, Any]:
    stream = plan.streams[step.stream_pos]
    question = {
        "stream": step.stream_pos,
        "streams": len(plan.streams),
        "step": step.step_pos,
        # The URL is the session's; the kept body has a placeholder that every response replaces.
        "image": {"id": stream.test_image_id, "width": stream.width, "height": stream.height, "url": ""},
        "question": step.question,
        "text": step.text,
        "labels": plan.labels_before(step),
    }
    return _plain(s.CurrentQuestionSerializer(question).data)


def _plain(value: Any) -> Any:
    """The serializer's ReturnDicts and OrderedDicts as plain dicts and lists (the same JSON)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value
