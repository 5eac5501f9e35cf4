"""Published tests built row by row (no engine: the figures are known by construction), vision systems
and their tokens."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.utils import timezone
from PIL import Image as PILImage

from accounts.roles import Role
from tests.factories import CollectionFactory, ImageFactory

REGION = {"id": "whole", "box": [0.0, 0.0, 64.0, 48.0]}
POINT = (17.125, 29.875)  # where an operator clicked a label's object: numbers found nowhere else


def question(kind: str, n: int = 1) -> dict[str, Any]:
    if kind in ("exist", "unique"):
        return {"kind": kind, "type": "person", "attributes": [], "region": REGION}
    if kind == "attr":
        return {"kind": "attr", "label": f"person {n}", "attributes": ["walking"]}
    if kind == "rel":
        return {"kind": "rel", "subject": "person 2", "relationship": "closer than", "object": "person 1"}
    raise ValueError(kind)


def png_bytes(colour=(10, 120, 30)) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", (64, 48), colour).save(buffer, format="PNG")
    return buffer.getvalue()


# Each stream: (kind, answer) in the order truthed; "ambiguous" is a rejected step, never shown.
DEFAULT_STREAMS = [
    [("exist", "yes"), ("unique", "yes"), ("attr", "ambiguous"), ("attr", "no"), ("unique", "no")],
    [("exist", "no"), ("unique", "yes"), ("attr", "yes"), ("unique", "yes"), ("rel", "yes")],
    [("exist", "yes"), ("exist", "no")],
]


def build_test(streams=None, *, name: str = "hand-built", state: str = "published", open_streams: int = 1):
    """A test in `state` with one test image (a real PNG) per stream and the given steps, all answered; its
    images are truthed by operators, with a pool of one stream each, so every session is dealt the same.
    The question text says its stream and step, so a leak of a future question is easy to find. A session
    has `open_streams` streams open at once (one by default: a question at a time, in the plan's order;
    tests/evaluation/test_open_streams.py opens several)."""
    from engine.models import FittedStatistics
    from truthing.models import Step, Stream, Test, TestImage
    from truthing.published import plans_forget

    plans_forget()
    collection = CollectionFactory()
    statistics = FittedStatistics.objects.create(vocabulary=collection.vocabulary, status="ready")
    test = Test.objects.create(
        name=name,
        statistics=statistics,
        state=state,
        engine_settings={},
        published_at=timezone.now(),
        open_streams=open_streams,
    )
    for position, steps in enumerate(streams or DEFAULT_STREAMS):
        image = ImageFactory(
            collection=collection,
            split="test",
            width=64,
            height=48,
            file=ContentFile(png_bytes((position * 40, 100, 30)), name=f"secret-name-{position}.png"),
        )
        test_image = TestImage.objects.create(test=test, image=image, position=position, mode="operator")
        stream = Stream.objects.create(test_image=test_image, number=0, state="ended")
        Step.objects.bulk_create(step_rows(stream, steps, position))
    return test


def step_rows(stream, steps: list[tuple[str, str]], position: int) -> list:
    """The stream's steps, unsaved: (kind, answer) in the order truthed, all answered by the oracle; a
    unique "yes" labels the next person."""
    from truthing.models import Step

    rows, persons = [], 0
    for index, (kind, answer) in enumerate(steps):
        label = ""
        if kind == "unique" and answer == "yes":
            persons += 1
            label = f"person {persons}"
        rows.append(
            Step(
                stream=stream,
                index=index,
                question=question(kind, max(persons, 1)),
                text=f"QTEXT-s{position}-i{index}-{kind}",
                p=0.3 + 0.1 * (index % 4),
                population=30,
                answer=answer,
                label=label,
                # The operator's point on the label's object: never shown to a system (the leak probe).
                point_x=POINT[0] if label else None,
                point_y=POINT[1] if label else None,
                automatic=True,
                answered_at=timezone.now(),
            )
        )
    return rows


@pytest.fixture
def published_test(db):
    return build_test()


@pytest.fixture
def owner(make_user):
    return make_user(Role.VISION_SYSTEM_OWNER, username="owner")


@pytest.fixture
def system(owner):
    from evaluation.services.systems import system_create

    return system_create(owner=owner, name="my system")


@pytest.fixture
def system_token(system):
    from evaluation.services.systems import system_token_create

    return system_token_create(system=system, name="run")[1]


def shown_positions(streams=None) -> list[tuple[int, int]]:
    """(stream, step) of every question a system is asked, in order (rejected steps are not shown)."""
    shown = [[a for _, a in stream if a != "ambiguous"] for stream in streams or DEFAULT_STREAMS]
    return [(i, j) for i, stream in enumerate(shown) for j in range(len(stream))]


def take_test(system, test, *, answer: bool = True, questions: int | None = None):
    """Enrol `system` in `test` and answer `answer` to every question (or to the first `questions`),
    through the services; a session that ends is scored here, whether or not on-commit callbacks run."""
    from evaluation.services.scores import score_store
    from evaluation.services.sessions import answer_submit, session_enrol

    session = session_enrol(system=system, test_id=test.pk)
    for stream, step in shown_positions()[:questions]:
        answer_submit(session_id=session.pk, stream=stream, step=step, answer=answer)
    score_store(session_id=session.pk)
    session.refresh_from_db()
    return session


def archive(test) -> None:
    from truthing.models import Test

    Test.objects.filter(pk=test.pk).update(state="archived")
    test.refresh_from_db()


@pytest.fixture
def scored_world(users, make_user):
    """alpha, a public system of the vision-system owner, finished the published "street test" and the
    archived "old test" answering yes everywhere; "hidden" (private) finished the street test too, and
    a private built-in baseline did. Another owner has a system that took nothing yet."""
    from evaluation.services.systems import system_create

    owner = users[Role.VISION_SYSTEM_OWNER]
    published = build_test(name="street test")
    archived = build_test(name="old test")
    alpha = system_create(owner=owner, name="alpha", description="looks hard", url="https://example.org/a")
    sessions = {"published": take_test(alpha, published), "archived": take_test(alpha, archived)}
    archive(archived)
    hidden = system_create(owner=owner, name="hidden", public=False)
    take_test(hidden, published)
    baseline = system_create(owner=users[Role.ADMIN], name="always yes", public=False, baseline="always-yes")
    take_test(baseline, published)
    other_owner = make_user(Role.VISION_SYSTEM_OWNER, username="other-owner")
    newcomer = system_create(owner=other_owner, name="newcomer")
    return {
        "owner": owner,
        "other_owner": other_owner,
        "published": published,
        "archived": archived,
        "alpha": alpha,
        "hidden": hidden,
        "baseline": baseline,
        "newcomer": newcomer,
        "sessions": sessions,
    }
