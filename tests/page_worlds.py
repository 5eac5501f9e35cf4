"""Collections and published tests of any size, written with bulk_create: what the pages' query-count
test (tests/frontend/test_pages_do_not_grow.py) and benchmarks.pages_speed open pages on. No engine, no
files: the rows the pages read, as the evaluation tests build theirs (tests/evaluation/conftest.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from tests.evaluation.conftest import DEFAULT_STREAMS, step_rows

# The stages, in turn: every page that lists or takes images finds some of each.
STAGES = ("accepted", "review", "annotate")
OBJECTS_PER_IMAGE = 3
HELD_EVERY = 5


def bulk_images(
    collection, count: int, *, annotator=None, reviewer=None, holder=None, split: str = "train"
) -> list:
    """`count` images without pixels, the stages in turn (an annotator and a reviewer on those past
    annotation; every HELD_EVERY-th held by `holder` for an hour), each with OBJECTS_PER_IMAGE boxed
    persons."""
    from annotations.models import Image, ObjectAnnotation

    now = timezone.now()
    held = now + timedelta(hours=1)
    start = collection.images.count()
    images = Image.objects.bulk_create(
        Image(
            collection=collection,
            original_name=f"bulk-{number:07d}.jpg",
            width=640,
            height=480,
            split=split,
            stage=STAGES[number % len(STAGES)],
            annotator=annotator if STAGES[number % len(STAGES)] != "annotate" else None,
            reviewed_by=reviewer if STAGES[number % len(STAGES)] == "accepted" else None,
            lease_holder=holder if number % HELD_EVERY == HELD_EVERY - 1 else None,
            lease_expires_at=held if holder and number % HELD_EVERY == HELD_EVERY - 1 else None,
            created_at=now,
        )
        for number in range(start, start + count)
    )
    person = collection.vocabulary.types.get(name="person")
    ObjectAnnotation.objects.bulk_create(
        ObjectAnnotation(image=image, position=n, object_type=person, x=10 * n, y=10, w=40, h=80)
        for image in images
        for n in range(OBJECTS_PER_IMAGE)
    )
    return images


def bulk_test(images: list, *, name: str) -> Any:
    """A published test on `images` (one operator-truthed stream each, DEFAULT_STREAMS' steps in turn)."""
    from engine.models import FittedStatistics
    from truthing.models import Step, Stream, Test, TestImage
    from truthing.published import plans_forget

    plans_forget()
    vocabulary = images[0].collection.vocabulary
    statistics = FittedStatistics.objects.create(vocabulary=vocabulary, status="ready")
    test = Test.objects.create(
        name=name, statistics=statistics, state="published", engine_settings={}, published_at=timezone.now()
    )
    test_images = TestImage.objects.bulk_create(
        TestImage(test=test, image=image, position=position, mode="operator")
        for position, image in enumerate(images)
    )
    streams = Stream.objects.bulk_create(
        Stream(test_image=test_image, number=0, state="ended") for test_image in test_images
    )
    Step.objects.bulk_create(
        step
        for position, stream in enumerate(streams)
        for step in step_rows(stream, DEFAULT_STREAMS[position % len(DEFAULT_STREAMS)], position)
    )
    return test


def scored_session(system, test, *, answer: bool = True, questions: int | None = None):
    """`system` takes `test` through the services, answering `answer` to its first `questions` questions
    (all of them by default); a session left unfinished is closed as its deadline would close it. Scored."""
    from evaluation.models import Session, SessionState
    from evaluation.selectors.plans import plan_of
    from evaluation.services.scores import score_store
    from evaluation.services.sessions import answer_submit, session_enrol

    session = session_enrol(system=system, test_id=test.pk)
    steps = plan_of(session).steps
    for step in steps[:questions]:
        answer_submit(session_id=session.pk, stream=step.stream_pos, step=step.step_pos, answer=answer)
    if questions is not None and questions < len(steps):
        Session.objects.filter(pk=session.pk).update(state=SessionState.EXPIRED, ended_at=timezone.now())
    score_store(session_id=session.pk)
    session.refresh_from_db()
    return session
