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


def build_test(streams=None, *, name: str = "hand-built", state: str = "published"):
    """A test in `state` with one test image (a real PNG) per stream and the given steps, all answered.
    The question text says its stream and step, so a leak of a future question is easy to find."""
    from engine.models import FittedStatistics
    from truthing.models import Step, Stream, Test, TestImage
    from truthing.published import plans_forget

    plans_forget()
    collection = CollectionFactory()
    statistics = FittedStatistics.objects.create(vocabulary=collection.vocabulary, status="ready")
    test = Test.objects.create(
        name=name, statistics=statistics, state=state, engine_settings={}, published_at=timezone.now()
    )
    for position, steps in enumerate(streams or DEFAULT_STREAMS):
        image = ImageFactory(
            collection=collection,
            split="test",
            width=64,
            height=48,
            file=ContentFile(png_bytes((position * 40, 100, 30)), name=f"secret-name-{position}.png"),
        )
        test_image = TestImage.objects.create(test=test, image=image, position=position, mode="automatic")
        stream = Stream.objects.create(test_image=test_image, number=0, state="ended")
        persons = 0
        for index, (kind, answer) in enumerate(steps):
            label = ""
            if kind == "unique" and answer == "yes":
                persons += 1
                label = f"person {persons}"
            Step.objects.create(
                stream=stream,
                index=index,
                question=question(kind, max(persons, 1)),
                text=f"QTEXT-s{position}-i{index}-{kind}",
                p=0.3 + 0.1 * (index % 4),
                population=30,
                answer=answer,
                label=label,
                automatic=True,
                answered_at=timezone.now(),
            )
    return test


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


@pytest.fixture
def token_client():
    from rest_framework.test import APIClient

    def make(secret: str) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
        return client

    return make
