"""Writes of the engine app: asking for a fit, and running it (from the Celery task)."""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotations.models import Collection, Image, Split, Stage
from annotations.selectors.vocabularies import core_vocabulary
from engine import bridge, tasks
from engine.core.errors import EngineError
from engine.core.statistics import fit, save
from engine.errors import EngineErrorCode
from engine.models import FitStatus, FittedStatistics
from vtt_site.errors import ApplicationError, NotFoundError

logger = logging.getLogger(__name__)

PROGRESS_EVERY = 500  # images between two progress writes
# A fit left "fitting" longer than the task time limit died with its worker; its redelivery may take over.
STALE_AFTER = timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)


@dataclass(frozen=True)
class FitRequest:
    vocabulary_id: int
    min_overlap: float
    image_ids: list[int]


def check_fit_request(*, collections: list[Collection], min_overlap: float | None) -> FitRequest:
    """What a fit on these collections would use, or the reason it cannot be asked for."""
    if not collections:
        raise ApplicationError(
            EngineErrorCode.NO_COLLECTIONS,
            "Name at least one collection to fit on.",
            fields={"collections": ["At least one collection is required."]},
        )
    vocabularies = {c.vocabulary_id for c in collections}
    if len(vocabularies) > 1:
        raise ApplicationError(
            EngineErrorCode.MIXED_VOCABULARIES,
            "The collections use different vocabularies; fit them separately.",
            fields={"collections": ["All collections must share one vocabulary."]},
        )
    overlap = settings.VTT["ENGINE_REGION_MIN_OVERLAP"] if min_overlap is None else min_overlap
    if not 0.0 <= overlap < 1.0:
        raise ApplicationError(
            EngineErrorCode.BAD_SETTING,
            "min_overlap must be at least 0 and below 1.",
            fields={"min_overlap": ["Between 0 (any overlap) and 1."]},
        )
    image_ids = list(
        Image.objects.filter(collection__in=collections, split=Split.TRAIN, stage=Stage.ACCEPTED)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    if not image_ids:
        names = ", ".join(c.name for c in collections)
        raise ApplicationError(
            EngineErrorCode.NO_TRAINING_IMAGES,
            f"{names}: no reviewed training images yet; accept some in review first.",
        )
    return FitRequest(vocabularies.pop(), overlap, image_ids)


@transaction.atomic
def statistics_fit_start(
    *, user: Any, collections: list[Collection], min_overlap: float | None = None
) -> FittedStatistics:
    """Record the exact training set now and fit it in the background (a Celery task)."""
    request = check_fit_request(collections=collections, min_overlap=min_overlap)
    statistics = FittedStatistics.objects.create(
        vocabulary_id=request.vocabulary_id,
        created_by=user,
        settings={"min_overlap": request.min_overlap},
    )
    statistics.collections.set(collections)
    through = FittedStatistics.training_images.through
    through.objects.bulk_create(
        [through(fittedstatistics_id=statistics.pk, image_id=pk) for pk in request.image_ids], batch_size=5000
    )
    transaction.on_commit(lambda: tasks.fit_statistics.delay(statistics.pk))
    return statistics


def _claim(statistics_id: int) -> FittedStatistics | None:
    """Move a queued (or abandoned) fit to "fitting"; None when another run has it or it is done."""
    now = timezone.now()
    with transaction.atomic():
        statistics = FittedStatistics.objects.select_for_update().filter(pk=statistics_id).first()
        if statistics is None:
            raise NotFoundError(
                EngineErrorCode.STATISTICS_NOT_FOUND, f"There are no statistics {statistics_id}."
            )
        abandoned = (
            statistics.status == FitStatus.FITTING
            and statistics.started_at
            and (now - statistics.started_at > STALE_AFTER)
        )
        if statistics.status != FitStatus.QUEUED and not abandoned:
            return None
        statistics.status, statistics.started_at, statistics.progress = FitStatus.FITTING, now, 0.0
        statistics.save(update_fields=["status", "started_at", "progress"])
    return statistics


def statistics_fit_run(*, statistics_id: int) -> FittedStatistics | None:
    """Fit and save the file. Safe to run twice: a second run finds the fit claimed or finished.

    Not one transaction on purpose: progress must be visible while it runs, and the file is written
    before the row says "ready", so a row never points at a missing file.
    """
    statistics = _claim(statistics_id)
    if statistics is None:
        return None
    started = time.perf_counter()
    try:
        vocabulary = core_vocabulary(statistics.vocabulary)
        image_ids = list(statistics.training_images.values_list("pk", flat=True))
        total = len(image_ids)

        def report(done: int) -> None:
            if done % PROGRESS_EVERY == 0:
                FittedStatistics.objects.filter(pk=statistics.pk).update(progress=done / total)

        fitted = fit(
            vocabulary, bridge.scenes_of(image_ids, vocabulary, report), statistics.settings["min_overlap"]
        )
        engine_dir = settings.VTT["ENGINE_DIR"]
        engine_dir.mkdir(parents=True, exist_ok=True)
        file_name = f"statistics-{statistics.pk}-{uuid.uuid4().hex[:8]}.npz"
        save(fitted, engine_dir / file_name)
    except EngineError as exc:
        return _fail(statistics, f"The training set could not be fitted: {exc}")
    except Exception as exc:  # the row must say it failed whatever went wrong; the log has the rest
        logger.exception("Fitting statistics %s failed", statistics.pk)
        return _fail(
            statistics, f"Fitting failed unexpectedly ({exc.__class__.__name__}); see the worker log."
        )
    summary = fitted.summary()
    statistics.status, statistics.progress, statistics.finished_at = FitStatus.READY, 1.0, timezone.now()
    statistics.n_images, statistics.n_objects, statistics.n_pairs = (
        summary["images"],
        summary["objects"],
        summary["pairs"],
    )
    statistics.summary = summary
    statistics.file_name = file_name
    statistics.file_size = (engine_dir / file_name).stat().st_size
    statistics.fit_seconds = round(time.perf_counter() - started, 3)
    statistics.save()
    return statistics


def _fail(statistics: FittedStatistics, message: str) -> FittedStatistics:
    statistics.status, statistics.message, statistics.finished_at = FitStatus.FAILED, message, timezone.now()
    statistics.save(update_fields=["status", "message", "finished_at"])
    return statistics


@transaction.atomic
def statistics_delete(*, statistics: FittedStatistics) -> None:
    """Delete the row, and its file once the deletion is committed."""
    path = statistics.path
    statistics.delete()
    if path is not None:
        transaction.on_commit(lambda: path.unlink(missing_ok=True))


def statistics_current_ensure(*, collection: Collection, user: Any = None) -> FittedStatistics:
    """Statistics fitted (or being fitted) on exactly the collection's current training images; a new fit
    when there are none (or the training set changed since)."""
    request = check_fit_request(collections=[collection], min_overlap=None)
    wanted = set(request.image_ids)
    for statistics in (
        FittedStatistics.objects.filter(collections=collection)
        .exclude(status=FitStatus.FAILED)
        .order_by("-created_at")
    ):
        if set(statistics.training_images.values_list("pk", flat=True)) == wanted:
            return statistics
        break  # only the latest fit is worth comparing
    return statistics_fit_start(user=user, collections=[collection])
