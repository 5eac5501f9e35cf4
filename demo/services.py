"""Demo data: one user per role and a collection of synthetic street scenes, made idempotently.

Passwords are random, generated the first time and kept in VAR_DIR/demo-credentials.json (never in the
repository) so that every later run can print them again without touching the users. The collection's
images are rendered by `demo.synthetic` and stored exactly as uploads are; their scene graphs
come in through the import, as an already reviewed dataset. Three tests show truthing and taking: one
published, truthed by the oracle; a practice test, on images of its own; and one waiting for the demo
operator. A second run only finds what exists.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.test import override_settings

from accounts.roles import Role
from accounts.services import user_create_with_role
from annotations.models import Collection, MemberRole, Split
from annotations.services.collections import collection_create, membership_set
from annotations.services.vocabularies import vocabulary_install_default
from datasets.formats import jsonl_line
from datasets.models import ImportJob, SceneFormat
from datasets.services.creation import import_create
from datasets.services.run import import_run
from demo.checks import demo_checks_ensure
from demo.once import demo_test_found_or_made
from demo.pictures import pictures_ensure, scene_pictures_upload
from demo.synthetic import generate_scenes
from truthing.models import AutomaticTruthing, Test, TestState
from truthing.services.automatic import automatic_truthing_run
from truthing.services.lifecycle import publish_blockers, publish_test, start_test
from vtt_site.errors import ApplicationError

COLLECTION_NAME = "Demo street scenes"
SEED = 2015
TRAIN, TEST, WAITING = 300, 40, 12
# Reviewed scene graphs without pixels (like an imported existing dataset), so that the demo's training
# set has the paper's 2,591 images and the engine's streams are as long as they would be there.
GRAPHS_ONLY = 2291
UPLOAD_BATCH = 50


@dataclass(frozen=True)
class DemoUser:
    username: str
    role: Role
    member_role: MemberRole | None  # the vision-system owner is kept out of annotation collections
    password: str = ""


DEMO_USERS = (
    DemoUser("annotator", Role.ANNOTATOR, MemberRole.ANNOTATOR),
    DemoUser("reviewer", Role.REVIEWER, MemberRole.REVIEWER),
    DemoUser("operator", Role.OPERATOR, MemberRole.OPERATOR),
    # A colleague whose past work gives the demo's checks something to check (demo.checks).
    DemoUser("operator-2", Role.OPERATOR, MemberRole.OPERATOR),
    DemoUser("vision-owner", Role.VISION_SYSTEM_OWNER, None),
    DemoUser("admin", Role.ADMIN, MemberRole.REVIEWER),
)


def demo_users_ensure(*, credentials: Path) -> list[DemoUser]:
    """Create missing demo users; a user whose password is on file is left alone."""
    known = json.loads(credentials.read_text()) if credentials.exists() else {}
    User = get_user_model()
    ready = []
    for demo in DEMO_USERS:
        password = known.get(demo.username)
        if password is None or not User.objects.filter(username=demo.username).exists():
            password = password or secrets.token_urlsafe(12)
            user_create_with_role(username=demo.username, password=password, role=demo.role)
            known[demo.username] = password
        ready.append(DemoUser(demo.username, demo.role, demo.member_role, password))
    _write_private(credentials, json.dumps(known, indent=2) + "\n")
    return ready


def _write_private(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)


def demo_collection_ensure(*, users: Iterable[DemoUser]) -> Collection:
    vocabulary, _ = vocabulary_install_default()
    collection = Collection.objects.filter(name=COLLECTION_NAME).first()
    if collection is None:
        collection = collection_create(
            name=COLLECTION_NAME,
            vocabulary=vocabulary,
            description="Synthetic street scenes with exact scene graphs, made by `manage.py demo_setup`.",
        )
    User = get_user_model()
    for demo in users:
        if demo.member_role is not None:
            user = User.objects.get(username=demo.username)
            membership_set(collection=collection, user_id=user.pk, role=demo.member_role)
    _fill(collection)
    return collection


def _fill(collection: Collection) -> None:
    scenes = list(generate_scenes(TRAIN + TEST + WAITING, SEED, prefix="demo"))
    present = set(collection.images.values_list("original_name", flat=True))
    splits = [Split.TRAIN] * TRAIN + [Split.TEST] * TEST + [Split.TRAIN] * WAITING
    missing = [
        (scene, split) for scene, split in zip(scenes, splits, strict=True) if scene["image"] not in present
    ]
    for split in Split:
        batch = [scene for scene, scene_split in missing if scene_split == split]
        for start in range(0, len(batch), UPLOAD_BATCH):
            scene_pictures_upload(
                collection=collection, scenes=batch[start : start + UPLOAD_BATCH], split=split
            )
    annotated = set(
        collection.images.filter(annotated_at__isnull=False).values_list("original_name", flat=True)
    )
    to_import = [scene for scene in scenes[: TRAIN + TEST] if scene["image"] not in annotated]
    to_import += [
        scene
        for scene in generate_scenes(GRAPHS_ONLY, SEED + 1, prefix="demo-graph")
        if scene["image"] not in present
    ]
    if to_import:
        _import_reviewed(collection, to_import)


def _import_reviewed(collection: Collection, scenes: list[dict]) -> None:
    content = ContentFile("".join(jsonl_line(scene) for scene in scenes).encode(), name="demo-scenes.jsonl")
    job = import_create(
        collection=collection, format=SceneFormat.JSONL, file=content, mark_reviewed=True, start=False
    )
    job = import_run(job_id=job.pk)
    if job.status != ImportJob.Status.DONE:
        raise ApplicationError(
            "demo_import_failed", f"The demo scene graphs did not import: {job.errors[:3]}"
        )


# --- tests: one published (truthed by the oracle), a practice test, one waiting for the demo operator ----

AUTOMATIC_TEST = "Demo test, truthed by the oracle"
PRACTICE_TEST = "Demo practice test"
OPERATOR_TEST = "Demo test for the operator"
AUTOMATIC_IMAGES = 6  # the first test images of the collection (all have a reviewed scene graph)
# Test images of their own (rendered, with reviewed scene graphs), never in a scored test: a practice
# test's truths are told to anyone, again and again (decision 0075).
PRACTICE_IMAGES = 3
PRACTICE_PREFIX = "demo-practice"
BLIND_IMAGES = 3  # rendered test images whose scene graphs are never imported: operators truth them


@dataclass(frozen=True)
class DemoTests:
    published: Test
    practice: Test
    truthing: Test
    checked: Test | None = None  # demo.checks: a stream to check, a gold check, a disagreement
    note: str = ""


def demo_tests_ensure(*, collection: Collection, statistics: Any, admin_username: str = "admin") -> DemoTests:
    """A published test truthed by the oracle, a practice test (a new owner's first try) and a test
    being truthed by operators, so that a newcomer sees the whole flow (docs/guides/operator.md). Made
    once; a later run only finds them (and finishes what a stopped run left undone)."""
    admin = get_user_model().objects.filter(username=admin_username).first()
    published, note = _oracle_test_ensure(
        name=AUTOMATIC_TEST,
        description="Every image has a reviewed scene graph, so the oracle answered every question.",
        image_ids=lambda: _reviewed_test_image_ids(collection)[:AUTOMATIC_IMAGES],
        statistics=statistics,
        admin=admin,
    )
    practice, practice_note = _oracle_test_ensure(
        name=PRACTICE_TEST,
        description="Take it as often as you like, each time with fresh questions, to try your system's "
        "integration: it is never on a leaderboard.",
        image_ids=lambda: [image.pk for image in _practice_images(collection)],
        statistics=statistics,
        admin=admin,
        practice=True,
    )
    truthing = demo_test_found_or_made(
        name=OPERATOR_TEST,
        description="Test images without a scene graph: the demo operator truths them (Truthing, Take next).",
        statistics=statistics,
        image_ids=lambda: [image.pk for image in _blind_images(collection)],
        seed=SEED,
        created_by=admin,
    )
    if truthing.state == TestState.DRAFT:
        truthing = start_test(test=truthing)
    notes = " ".join(n for n in (note, practice_note) if n)
    checked = demo_checks_ensure(
        collection=collection,
        statistics=statistics,
        seed=SEED,
        oracle_image_ids=_reviewed_test_image_ids(collection),
        admin_username=admin_username,
    )
    return DemoTests(published=published, practice=practice, truthing=truthing, checked=checked, note=notes)


def _reviewed_test_image_ids(collection: Collection) -> list[int]:
    """The collection's test images with a reviewed scene graph, never the practice test's (its truths
    are told to anyone: decision 0075), by name."""
    reviewed = collection.images.filter(
        split=Split.TEST, annotated_at__isnull=False, original_name__startswith="demo-"
    ).exclude(original_name__startswith=PRACTICE_PREFIX)
    return list(reviewed.order_by("original_name").values_list("pk", flat=True))


def _oracle_test_ensure(
    *,
    name: str,
    description: str,
    image_ids: Callable[[], list[int]],
    statistics: Any,
    admin: Any,
    practice: bool = False,
) -> tuple[Test, str]:
    """A test on reviewed test images, truthed by the oracle and published (as a practice test if
    asked): made, started, truthed and published as far as a stopped run left it; with a note when it
    cannot be published yet."""
    test = demo_test_found_or_made(
        name=name,
        description=description,
        statistics=statistics,
        image_ids=image_ids,
        seed=SEED,
        practice=practice,
        created_by=admin,
    )
    if test.state == TestState.PUBLISHED:
        return test, ""
    # No gold checks on the demo's oracle tests: they are published at once, without anyone answering
    # them (the operator test gets its checks as configured).
    with override_settings(TRUTHING_GOLD_SHARE=0.0):
        if test.state == TestState.DRAFT:
            test = start_test(test=test)
        # Eager (make run): the job ran when the start committed; this finds it done. With a worker
        # this process truths it unless the worker holds it already.
        for job in AutomaticTruthing.objects.filter(test=test):
            automatic_truthing_run(job_id=job.pk)
    test.refresh_from_db()
    blockers = publish_blockers(test)
    if blockers:
        return test, f"{name} is not published yet: {'; '.join(blockers)}."
    return publish_test(test=test, practice=practice), ""


def _practice_images(collection: Collection) -> list[Any]:
    """Rendered test images with reviewed scene graphs of their own (the oracle truths them), made for
    the practice test alone."""
    scenes = list(generate_scenes(PRACTICE_IMAGES, SEED + 3, prefix=PRACTICE_PREFIX))
    annotated = {image.original_name for image in pictures_ensure(collection, scenes) if image.annotated_at}
    unannotated = [scene for scene in scenes if scene["image"] not in annotated]
    if unannotated:
        _import_reviewed(collection, unannotated)
    names = [scene["image"] for scene in scenes]
    return list(collection.images.filter(original_name__in=names).order_by("original_name"))


def _blind_images(collection: Collection) -> list[Any]:
    """Rendered test images uploaded without their scene graphs (nobody has annotated them)."""
    return pictures_ensure(collection, generate_scenes(BLIND_IMAGES, SEED + 2, prefix="demo-blind"))
