"""A test's life: create, start truthing, publish, archive (draft -> truthing -> published -> archived).

A published test is frozen: every service that changes streams or answers refuses it
(truthing.services.rules.require_open). The top of truthing's services: nothing below imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max, QuerySet
from django.utils import timezone

from annotations.models import Image, Split, Stage
from annotations.selectors.images import without_pixels
from truthing.bridge import EngineErrorCode, Fit, engine_settings, fit_ready
from truthing.errors import TruthingErrorCode
from truthing.models import (
    MAX_OPEN_STREAMS,
    Check,
    Disagreement,
    DisagreementState,
    Step,
    StepAnswer,
    Stream,
    StreamState,
    Test,
    TestImage,
    TestState,
    TruthingMode,
)
from truthing.selectors import images_of_test, pixels_missing
from truthing.services.automatic import automatic_truthing_start
from truthing.services.practice import require_apart
from truthing.services.proposals import proposal_queue
from truthing.services.rules import lock_test, require_state
from vtt_site.errors import ApplicationError, CommonErrorCode, ConflictError

MAX_STREAMS_PER_IMAGE = 20
# The images without pixels a refusal names one by one (its message counts them all).
NAMED_WITHOUT_PIXELS = 10


@transaction.atomic
def create_test(
    *,
    name: str,
    statistics: Fit,
    image_ids: Sequence[int],
    description: str = "",
    settings: dict[str, Any] | None = None,
    seed: int = 0,
    streams_per_image: int = 1,
    practice: bool = False,
    created_by: Any = None,
) -> Test:
    """A draft test on these test images, frozen with the statistics and engine settings it will use;
    `practice`: meant to be published as a practice test (it may change until it is published)."""
    name = name.strip()
    if not name:
        raise ApplicationError(
            TruthingErrorCode.NO_TEST_IMAGES, "Give the test a name.", fields={"name": ["Required."]}
        )
    if Test.objects.filter(name=name).exists():
        raise ConflictError(
            TruthingErrorCode.TEST_NAME_TAKEN,
            f"There is a test named {name!r} already.",
            fields={"name": ["Choose another name."]},
        )
    if not fit_ready(statistics):
        raise ConflictError(
            EngineErrorCode.STATISTICS_NOT_READY,
            f"The statistics are {statistics.status}; a test needs ready statistics.",
            fields={"statistics": ["Not ready."]},
        )
    if not 1 <= streams_per_image <= MAX_STREAMS_PER_IMAGE:
        raise ApplicationError(
            EngineErrorCode.BAD_SETTING,
            f"streams_per_image must be between 1 and {MAX_STREAMS_PER_IMAGE}.",
            fields={"streams_per_image": [f"Between 1 and {MAX_STREAMS_PER_IMAGE}."]},
        )
    frozen_settings = asdict(engine_settings(**(settings or {})))
    images = check_test_images(statistics=statistics, image_ids=image_ids)
    try:
        test = Test.objects.create(
            name=name,
            description=description,
            statistics=statistics,
            engine_settings=frozen_settings,
            seed=seed,
            streams_per_image=streams_per_image,
            practice=practice,
            created_by=created_by,
        )
    except IntegrityError:
        raise ConflictError(
            TruthingErrorCode.TEST_NAME_TAKEN, f"There is a test named {name!r} already."
        ) from None
    TestImage.objects.bulk_create(
        [TestImage(test=test, image=image, position=i) for i, image in enumerate(images)]
    )
    return test


def check_test_images(*, statistics: Fit, image_ids: Sequence[int]) -> list[Image]:
    """The images in the order given, each a test image of the statistics' vocabulary with its pixels,
    never one the statistics were fitted on (a vision system would be tested on its teacher's own
    examples). Every way a test is made calls it: the API, the web UI's and the admin's form (before
    they save, so that a refusal is shown on the form), the demo."""
    if not image_ids:
        raise ApplicationError(
            TruthingErrorCode.NO_TEST_IMAGES,
            "Pick at least one test image.",
            fields={"images": ["Required."]},
        )
    if len(set(image_ids)) != len(image_ids):
        raise ApplicationError(
            TruthingErrorCode.NO_TEST_IMAGES,
            "An image is picked twice.",
            fields={"images": ["Listed twice."]},
        )
    found = {image.pk: image for image in Image.objects.filter(pk__in=image_ids).select_related("collection")}
    missing = [pk for pk in image_ids if pk not in found]
    if missing:
        raise ApplicationError(
            TruthingErrorCode.NO_TEST_IMAGES,
            f"There is no image {missing[0]}.",
            fields={"images": [f"No image {pk}." for pk in missing]},
        )
    images = [found[pk] for pk in image_ids]
    trained = set(statistics.training_images.filter(pk__in=image_ids).values_list("pk", flat=True))
    for field, bad, code, why in (
        (
            "images",
            [i for i in images if i.pk in trained],
            TruthingErrorCode.TRAINING_IMAGE,
            "was used for training in these statistics",
        ),
        (
            "images",
            [i for i in images if i.split != Split.TEST],
            TruthingErrorCode.NOT_A_TEST_IMAGE,
            "is not a test image (its role is training)",
        ),
        (
            "images",
            [i for i in images if i.collection.vocabulary_id != statistics.vocabulary_id],
            TruthingErrorCode.OTHER_VOCABULARY,
            "uses another vocabulary than the statistics",
        ),
    ):
        if bad:
            messages = [f"{image.original_name} {why}." for image in bad]
            raise ApplicationError(code, f"{messages[0]} Pick test images only.", fields={field: messages})
    require_pixels(Image.objects.filter(pk__in=image_ids), order=image_ids)
    return images


def require_pixels(images: QuerySet[Image], *, order: Sequence[int] = ()) -> None:
    """Refuse a test's images when any has no pixels (a scene graph imported without its image file):
    no vision system could take the test. The refusal counts them and names the first few (in `order`,
    the order they were picked in, when given)."""
    missing = pixels_missing(images)
    if not missing:
        return
    rank = {pk: i for i, pk in enumerate(order)}
    bare = sorted(
        without_pixels(images).values_list("pk", "original_name"), key=lambda r: rank.get(r[0], r[0])
    )
    named = [f"{name} has no pixels." for _, name in bare[:NAMED_WITHOUT_PIXELS]]
    if len(bare) > len(named):
        named.append(f"And {len(bare) - len(named)} more.")
    raise ApplicationError(
        TruthingErrorCode.IMAGES_WITHOUT_PIXELS,
        f"{missing[0].upper()}{missing[1:]}: a test needs images a vision system can look at (and an "
        "operator truth). Upload their image files on the collection page first (named as the images), "
        "or leave them out.",
        fields={"images": named},
    )


@transaction.atomic
def start_test(*, test: Test) -> Test:
    """Start truthing: one stream per (image, stream number); images with a reviewed annotation are
    truthed by the oracle in the background, the others wait for operators (their first question is
    proposed at once)."""
    test = lock_test(test.pk)
    require_state(test, TestState.DRAFT, "started")
    require_pixels(images_of_test(test))  # a draft made before the rule
    test_images = list(test.test_images.select_related("image"))
    for test_image in test_images:
        annotated = test_image.image.stage == Stage.ACCEPTED and test_image.image.annotated_at is not None
        test_image.mode = TruthingMode.AUTOMATIC if annotated else TruthingMode.OPERATOR
    TestImage.objects.bulk_update(test_images, ["mode"])
    streams = Stream.objects.bulk_create(
        [Stream(test_image=ti, number=n) for ti in test_images for n in range(test.streams_per_image)]
    )
    test.state, test.started_at = TestState.TRUTHING, timezone.now()
    test.save(update_fields=["state", "started_at"])
    operator_streams = [
        s.pk for s, ti in _with_images(streams, test_images) if ti.mode == TruthingMode.OPERATOR
    ]
    transaction.on_commit(lambda: [proposal_queue(pk) for pk in operator_streams])
    if any(ti.mode == TruthingMode.AUTOMATIC for ti in test_images):
        automatic_truthing_start(test=test)
    return test


def _with_images(streams: list[Stream], test_images: list[TestImage]):
    by_id = {ti.pk: ti for ti in test_images}
    return [(s, by_id[s.test_image_id]) for s in streams]


def _counted(n: int, one: str, many: str) -> str:
    """ "1 stream has not ended", "2 streams have not ended": a sentence a person reads, not "stream(s)"."""
    return f"{n} {one if n == 1 else many}"


def publish_blockers(test: Test) -> list[str]:
    """What keeps the test from being published, for a person; empty when it may be."""
    streams = Stream.objects.filter(test_image__test=test)
    blockers = []
    missing = pixels_missing(images_of_test(test))
    if missing:  # a test started before the rule
        blockers.append(f"{missing} (a test needs images a vision system can look at)")
    unfinished = streams.exclude(state=StreamState.ENDED).count()
    if unfinished:
        blockers.append(_counted(unfinished, "stream has not ended", "streams have not ended"))
    elif not Step.objects.filter(stream__in=streams, answer__in=(StepAnswer.YES, StepAnswer.NO)).exists():
        blockers.append(
            "the test has no question: every stream ended without one (the engine found none it may ask "
            "from these statistics: fit them on more training images, or lower the minimum population)"
        )
    checks = Check.objects.filter(stream__test_image__test=test, finished_at__isnull=True).count()
    if checks:
        blockers.append(_counted(checks, "check is not finished", "checks are not finished"))
    disagreements = Disagreement.objects.filter(
        step__stream__test_image__test=test, state=DisagreementState.OPEN
    ).count()
    if disagreements:
        blockers.append(
            _counted(
                disagreements, "disagreement waits for adjudication", "disagreements wait for adjudication"
            )
        )
    return blockers


@transaction.atomic
def publish_test(*, test: Test, practice: bool | None = None) -> Test:
    """Freeze the test: from now on systems may take it, and nothing about it changes. `practice` says
    whether it is published as a practice test (None: as the test says); a practice test and a scored
    test never share an image (truthing.services.practice, decision 0075)."""
    test = lock_test(test.pk)
    require_state(test, TestState.TRUTHING, "published")
    blockers = publish_blockers(test)
    if blockers:
        raise ConflictError(
            TruthingErrorCode.TEST_UNFINISHED,
            f"{test.name} cannot be published yet: {'; '.join(blockers)}.",
            fields={"non_field_errors": blockers},
        )
    practice = test.practice if practice is None else practice
    require_apart(test, practice=practice)
    test.state, test.published_at, test.practice = TestState.PUBLISHED, timezone.now(), practice
    test.save(update_fields=["state", "published_at", "practice"])
    return test


@transaction.atomic
def describe_test(
    *, test_id: int, name: str, description: str, practice: bool, open_streams: int | None = None
) -> Test:
    """Rename or redescribe a test, mark it as a practice test or not, or set how many streams a
    session may have open at once, until it is published: a published test's kind never changes (a
    scored test turned practice could be taken again and again), nor its number of open streams.
    Under the test's lock, so that a publish at the same moment is either before (refused here) or
    after (it reads the kind saved here)."""
    test = lock_test(test_id)
    if test.frozen:
        raise ConflictError(
            TruthingErrorCode.TEST_FROZEN, f"{test.name} is {test.state}: it can no longer be changed."
        )
    if open_streams is not None and not 1 <= open_streams <= MAX_OPEN_STREAMS:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            f"A session may have 1 to {MAX_OPEN_STREAMS} streams open at once, not {open_streams}.",
            fields={"open_streams": [f"From 1 to {MAX_OPEN_STREAMS}."]},
        )
    test.name, test.description, test.practice = name.strip(), description, practice
    test.open_streams = test.open_streams if open_streams is None else open_streams
    test.save(update_fields=["name", "description", "practice", "open_streams"])
    return test


@transaction.atomic
def archive_test(*, test: Test) -> Test:
    test = lock_test(test.pk)
    require_state(test, TestState.PUBLISHED, "archived")
    test.state, test.archived_at = TestState.ARCHIVED, timezone.now()
    test.save(update_fields=["state", "archived_at"])
    return test


# Streams an admin may add to one pool at a time.
MAX_POOL_GROWTH = 20


@transaction.atomic
def pool_grow(*, test: Test, position: int, streams: int) -> list[Stream]:
    """Add `streams` streams to the pool of the operator-truthed image at `position` of a published
    test: operators truth them (and checks check them) while the test stays published, and sessions
    are dealt them once they have ended and their checks are settled (truthing.published.pools.dealable_pool).
    What existing sessions were dealt does not change: a stream once dealt never changes."""
    test = lock_test(test.pk)
    require_state(test, TestState.PUBLISHED, "given more streams")
    test_image = test.test_images.filter(position=position).first()
    if test_image is None or test_image.mode != TruthingMode.OPERATOR:
        raise ApplicationError(
            TruthingErrorCode.NOT_A_POOL,
            f"{test.name} has no image truthed by operators at position {position}: only those have pools.",
            fields={"position": ["Not an image truthed by operators."]},
        )
    if not 1 <= streams <= MAX_POOL_GROWTH:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            f"Add from 1 to {MAX_POOL_GROWTH} streams at a time.",
            fields={"streams": [f"From 1 to {MAX_POOL_GROWTH}."]},
        )
    last = Stream.objects.filter(test_image=test_image).aggregate(n=Max("number"))["n"]
    last = -1 if last is None else last
    now = timezone.now()
    added = Stream.objects.bulk_create(
        [Stream(test_image=test_image, number=last + 1 + k, grown_at=now) for k in range(streams)]
    )
    ids = [stream.pk for stream in added]
    transaction.on_commit(lambda: [proposal_queue(pk) for pk in ids])
    return added
