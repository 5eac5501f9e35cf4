"""Writes of the engine app: asking for a fit, and running it (from the Celery task)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from annotations.models import Collection, Image, Split, Stage
from annotations.selectors.vocabularies import core_vocabulary
from engine import bridge
from engine.conf import conf
from engine.core.shards import merge
from engine.core.statistics import fit
from engine.errors import EngineErrorCode
from engine.files import statistics_read, statistics_remove, statistics_write
from engine.models import STATISTICS_FOLDER, FitShard, FitStatus, FittedStatistics
from kernel.errors import EngineError
from vtt_site.errors import ApplicationError
from vtt_site.job_model import JobStatus
from vtt_site.jobs import JobFailed, job_enqueue, job_finish, job_limit_check, job_progress, job_run

PROGRESS_EVERY = 500  # images between two progress writes


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
    overlap = conf.ENGINE_REGION_MIN_OVERLAP if min_overlap is None else min_overlap
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
    job_limit_check(FittedStatistics, user=user, what="fits")
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
    job_enqueue(statistics)
    return statistics


def statistics_fit_run(*, statistics_id: int) -> FittedStatistics | None:
    """Fit and save the file (or take over a fit whose worker died); None when there was nothing to do.

    Not one transaction on purpose: progress must be visible while it runs. The file is written before
    the row says "ready", so a row never points at a missing file, and a run that lost the job removes
    its file, so exactly one file stays.
    """
    return job_run(
        FittedStatistics,
        statistics_id,
        _fit,
        unexpected=JobFailed("Fitting failed unexpectedly on the server; see the worker log."),
    )


def _fit(statistics: FittedStatistics) -> None:
    image_ids = sorted(statistics.training_images.values_list("pk", flat=True))
    if len(image_ids) > conf.ENGINE_FIT_SHARD_IMAGES:
        _fit_sharded(statistics, image_ids)
        return
    started = time.perf_counter()
    vocabulary = core_vocabulary(statistics.vocabulary)
    total = len(image_ids)

    def report(done: int) -> None:
        if done % PROGRESS_EVERY == 0:
            job_progress(statistics, progress=done / total)

    try:
        fitted = fit(
            vocabulary, bridge.scenes_of(image_ids, vocabulary, report), statistics.settings["min_overlap"]
        )
    except EngineError as exc:
        raise JobFailed(f"The training set could not be fitted: {exc}") from exc
    _save_and_finish(statistics, fitted, started)


def _save_and_finish(statistics: FittedStatistics, fitted, started: float) -> None:
    file_name, size = statistics_write(f"statistics-{statistics.pk}", fitted)
    summary = fitted.summary()
    try:
        job_finish(
            statistics,
            n_images=summary["images"],
            n_objects=summary["objects"],
            n_pairs=summary["pairs"],
            summary=summary,
            file_name=file_name,
            file_size=size,
            fit_seconds=round(time.perf_counter() - started, 3),
        )
    except BaseException:
        # Another run holds the job (or the row is gone): not our file. A run killed before this line
        # leaves an object without its row, which `storage_sweep` reports.
        statistics_remove(f"{STATISTICS_FOLDER}/{file_name}")
        raise


# --- Fits split into shards -------------------------------------------------------------------------------


def _fit_sharded(statistics: FittedStatistics, image_ids: list[int]) -> None:
    """First run: make the shards (contiguous ranges of the ids, so that merging them in order gives the
    single fit's arrays), wait for them and queue them. Run again by the last shard to settle: merge."""
    shards = list(statistics.shards.order_by("index"))
    if not shards:
        size = conf.ENGINE_FIT_SHARD_IMAGES
        count = math.ceil(len(image_ids) / size)
        step = math.ceil(len(image_ids) / count)
        shards = [
            FitShard.objects.create(
                statistics=statistics, index=k, first=k * step, last=min(len(image_ids), (k + 1) * step)
            )
            for k in range(count)
        ]
    if all(shard.status == JobStatus.DONE for shard in shards):
        _merge_shards(statistics, shards)
        return
    failed = [shard for shard in shards if shard.status == JobStatus.FAILED]
    if failed:
        raise JobFailed(
            f"Shard {failed[0].index + 1} of {len(shards)} could not be fitted: {failed[0].message}"
        )
    # Not running any more (no heartbeat, nothing for the sweeper): the shards' jobs carry the work.
    job_progress(statistics, status=FitStatus.WAITING, message=f"Fitting {len(shards)} shards side by side.")
    for shard in shards:
        if shard.status == JobStatus.QUEUED:
            job_enqueue(shard)


def _merge_shards(statistics: FittedStatistics, shards: list[FitShard]) -> None:
    started = time.perf_counter()
    try:
        fitted = merge([statistics_read(_shard_file(shard)) for shard in shards])
    except EngineError as exc:
        raise JobFailed(f"The shards could not be merged: {exc}") from exc
    _save_and_finish(statistics, fitted, started)
    for shard in shards:
        statistics_remove(_shard_file(shard))


def _shard_file(shard: FitShard) -> str:
    """A finished shard's file (a shard is merged only once all are finished, each with its file)."""
    if shard.storage_name is None:
        raise JobFailed("A shard of this fit has no statistics to merge; fit again.")
    return shard.storage_name


def fit_shard_run(*, shard_id: int) -> FitShard:
    """Fit one shard (or take over a shard whose worker died); then, if every shard has settled, queue
    the fit again so that it merges them (or fails with the shard's message)."""
    job_run(
        FitShard,
        shard_id,
        _fit_shard,
        unexpected=JobFailed("Fitting a shard failed unexpectedly; see the worker log."),
    )
    shard = FitShard.objects.get(pk=shard_id)
    _wake_when_settled(shard.statistics_id)
    return shard


def _fit_shard(shard: FitShard) -> None:
    statistics = shard.statistics
    vocabulary = core_vocabulary(statistics.vocabulary)
    image_ids = sorted(statistics.training_images.values_list("pk", flat=True))[shard.first : shard.last]
    try:
        fitted = fit(vocabulary, bridge.scenes_of(image_ids, vocabulary), statistics.settings["min_overlap"])
    except EngineError as exc:
        raise JobFailed(f"The training set could not be fitted: {exc}") from exc
    file_name, _ = statistics_write(f"shard-{statistics.pk}-{shard.index}", fitted)
    try:
        job_finish(shard, file_name=file_name)
    except BaseException:
        statistics_remove(f"{STATISTICS_FOLDER}/{file_name}")
        raise


@transaction.atomic
def _wake_when_settled(statistics_id: int) -> None:
    """The last shard to settle (done or failed) queues the waiting fit again, exactly once: the fit's
    row is locked and leaves `waiting` here."""
    statistics = FittedStatistics.objects.select_for_update().get(pk=statistics_id)
    if statistics.status != FitStatus.WAITING:
        return
    if statistics.shards.exclude(status__in=FitShard.settled_statuses()).exists():
        return
    statistics.status, statistics.attempts, statistics.enqueued_at = FitStatus.QUEUED, 0, None
    statistics.save(update_fields=["status", "attempts", "enqueued_at"])
    job_enqueue(statistics)


@transaction.atomic
def statistics_delete(*, statistics: FittedStatistics) -> None:
    """Delete the row, and its file once the deletion is committed."""
    name = statistics.storage_name
    statistics.delete()
    transaction.on_commit(lambda: statistics_remove(name))


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
