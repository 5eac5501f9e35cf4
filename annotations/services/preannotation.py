"""Pre-annotation: a model's suggestions for every image of a collection still to annotate, as a
background job with progress (vtt_site.jobs) and a report of each image that failed and why.

Each image is asked and written on its own (`suggestions_fetch`, one transaction per image): a failed
image changes nothing of its own and keeps the others'. Images a person holds right now keep the
suggestions they have, if any (the annotator may be deciding on them); the others' pending ones are
replaced. The job fails as a whole only when the server cannot be used at all (no server, switched
off, its credential unreadable), or when every image failed.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from annotations.models import Collection, Image, ModelBackend, PreannotationJob, Stage
from annotations.selectors.images import with_pixels
from annotations.selectors.suggestions import model_backend_missing
from annotations.services.suggestions import (
    SuggestionsUnavailable,
    active_backend,
    refuse_when_disabled,
    suggestions_fetch,
)
from annotations.suggestions.secrets import SecretUnusable, secret_open
from vtt_site.jobs import JobFailed, job_enqueue, job_finish, job_limit_check, job_progress, job_run
from vtt_site.leases import lease_free

MAX_FAILURES_LISTED = 1000  # a server down for a whole collection: the first ones say it all


@transaction.atomic
def preannotation_create(*, collection: Collection, user: Any = None, start: bool = True) -> PreannotationJob:
    backend = ModelBackend.objects.filter(collection=collection).first()
    if backend is None:
        raise model_backend_missing()
    refuse_when_disabled(backend)
    job_limit_check(PreannotationJob, user=user, what="pre-annotations")
    job = PreannotationJob.objects.create(collection=collection, created_by=user)
    if start:
        job_enqueue(job)
    return job


def preannotation_images(collection: Collection):
    """The images a pre-annotation asks about: with pixels, still to annotate, in id order."""
    return with_pixels(Image.objects.filter(collection=collection, stage=Stage.ANNOTATE)).order_by("pk")


def preannotation_run(*, job_id: int) -> PreannotationJob:
    reset = {"images_done": 0, "images_failed": 0, "boxes": 0, "regions_refused": 0, "failures": []}
    job_run(PreannotationJob, job_id, _run, reset=reset)
    return PreannotationJob.objects.get(pk=job_id)


def _run(job: PreannotationJob) -> None:
    backend = active_backend(job.collection_id)
    if backend is None:
        raise JobFailed("The collection is connected to no model server (or it is switched off) any more.")
    try:
        secret_open(backend.secret)
    except SecretUnusable as exc:
        raise JobFailed(exc.reason) from None
    images = list(preannotation_images(job.collection).values_list("pk", "original_name"))
    job_progress(job, images_total=len(images))
    counts = {"images_done": 0, "images_failed": 0, "boxes": 0, "regions_refused": 0}
    failures: list[dict[str, Any]] = []
    for pk, name in images:
        _one(pk, name, counts, failures)
        counts["images_done"] += 1
        job_progress(job, progress=counts["images_done"] / len(images), failures=failures, **counts)
    if images and counts["images_failed"] == len(images):
        raise JobFailed(
            f"Every image failed; the first: {failures[0]['reason']}", **counts, failures=failures
        )
    job_finish(job, **counts, failures=failures)


def _one(pk: int, name: str, counts: dict[str, int], failures: list[dict[str, Any]]) -> None:
    held = not Image.objects.filter(pk=pk).filter(lease_free(timezone.now())).exists()
    try:
        fetched = suggestions_fetch(image_id=pk, replace=not held)
    except Image.DoesNotExist:
        return  # deleted while the job ran: nothing to suggest for
    except SuggestionsUnavailable as exc:
        counts["images_failed"] += 1
        if len(failures) < MAX_FAILURES_LISTED:
            failures.append({"image": pk, "name": name, "reason": exc.reason})
        return
    counts["boxes"] += fetched.written
    counts["regions_refused"] += len(fetched.refused)
