"""The demo's published test and the training data the seeing baseline learns from.

`demo_test_ensure` builds (once) a test on the demo collection's test images, truthed automatically by
the oracle (they all have reviewed scene graphs), and publishes it. `seeing_training_data` reads the
images and boxes of the statistics' training images that have pixels: the demo's code may read the
training collection (decision 0031); the platform's evaluation never does.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from django.db import transaction
from django.test.utils import override_settings

from annotations.models import Collection, Image, Split
from annotations.selectors.images import with_pixels
from demo.services import COLLECTION_NAME
from engine.bridge import scenes_of
from engine.models import FitStatus
from engine.services import statistics_current_ensure
from kernel.regions import default_regions
from truthing.models import AutomaticTruthing, Test, TestImage, TestState
from truthing.services import lifecycle
from truthing.services.automatic import automatic_truthing_run
from vtt_site.errors import ApplicationError

DEMO_TEST_NAME = "Demo street test"
DEMO_TEST_SEED = 2015


def demo_test_ensure(*, images: int | None = None) -> Test:
    existing = Test.objects.filter(name=DEMO_TEST_NAME).first()
    if existing is not None and existing.state in (TestState.PUBLISHED, TestState.ARCHIVED):
        return existing
    collection = Collection.objects.filter(name=COLLECTION_NAME).first()
    if collection is None:
        raise ApplicationError("demo_missing", "Run `manage.py demo_setup` first.")
    statistics = statistics_current_ensure(collection=collection)
    statistics.refresh_from_db()
    if statistics.status != FitStatus.READY:
        raise ApplicationError(
            "demo_missing", f"The demo statistics are {statistics.status}; wait for the fit."
        )
    if existing is None:
        # Never an image of a practice test (the demo's has its own): its truths are anyone's, and
        # publishing would refuse it (decision 0075).
        practised = TestImage.objects.filter(test__practice=True).values("image_id")
        test_images = list(
            with_pixels(collection.images.filter(split=Split.TEST, annotated_at__isnull=False))
            .exclude(pk__in=practised)
            .order_by("original_name")
            .values_list("pk", flat=True)
        )
        if images:
            test_images = test_images[:images]
        existing = lifecycle.create_test(
            name=DEMO_TEST_NAME,
            statistics=statistics,
            image_ids=test_images,
            description="The demo's synthetic street scenes, truthed by the oracle.",
            seed=DEMO_TEST_SEED,
        )
    # No operator works on the demo: no second opinions, no gold work to wait for before publishing.
    with override_settings(TRUTHING_CHECK_SHARE=0.0, TRUTHING_GOLD_SHARE=0.0):
        if existing.state == TestState.DRAFT:
            with transaction.atomic():
                existing = lifecycle.start_test(test=existing)
        # Eager: the jobs ran when the start committed and this finds them done; with a worker this
        # process truths the parts the worker does not hold already.
        for job in AutomaticTruthing.objects.filter(test=existing):
            automatic_truthing_run(job_id=job.pk)
    return lifecycle.publish_test(test=Test.objects.get(pk=existing.pk))


def seeing_training_data(test: Test) -> tuple[dict[str, Any], list[tuple[float, float, float, float]], list]:
    """The vocabulary document, the region set (fractions) and (pixels, scene graph) of every training
    image of the test's statistics that has pixels."""
    from demo.baselines.seeing import TrainingImage
    from truthing.bridge import statistics_of

    vocabulary = statistics_of(test).vocabulary
    ids = list(with_pixels(test.statistics.training_images.all()).values_list("pk", flat=True))
    files = {image.original_name: image for image in Image.objects.filter(pk__in=ids)}
    from PIL import Image as PILImage

    training = []
    for scene in scenes_of(ids, vocabulary):
        image = files[scene.image]
        with image.file.open("rb") as handle:
            pixels = np.asarray(PILImage.open(io.BytesIO(handle.read())).convert("RGB"))
        training.append(TrainingImage(pixels=pixels, scene=scene.to_document(vocabulary)))
    regions = [region.box for region in (vocabulary.regions or default_regions())]
    return vocabulary.to_document(), regions, training
