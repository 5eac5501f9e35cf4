"""The writing phase of an import: one transaction that writes what was planned, or nothing.

A chunk of scenes at a time, bulk inserts: new images created, the annotations that change replaced (an
accepted image's only with `AcceptedImages.REPLACE`), the others left as they are. Where the written
images go: to review (a complete source: every object of the vocabulary's types boxed, every attribute
given), to accepted as well with `mark_reviewed`, or, from a source that is not complete, to the
annotation queue as drafts to complete.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from annotations.models import Image, Stage
from annotations.selectors.vocabularies import VocabularyIndex
from annotations.services.annotation import annotation_delete, annotation_insert, chunked
from datasets.models import AcceptedImages, ImportJob
from datasets.services.common import Status, failed
from datasets.services.plan import Change, Plan, chunks, existing_images, image_changes, stopped, why_stop
from kernel.scene import Scene
from vtt_site.jobs import job_progress


class _PlanChanged(Exception):
    """The collection changed between the plan and the write: roll the write back and stop again."""

    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan


def write(job: ImportJob, scenes: Iterable[Scene], index: VocabularyIndex, **values: Any) -> bool:
    """One transaction: the images, their annotations and the job marked written (with `values` and the
    counts of what was written), or nothing. The plan is made again under the write's locks: when it
    would now need a person's choice (the collection changed since it was planned), nothing is written
    and the job stops with it (False)."""
    try:
        with transaction.atomic():
            plan = _write_all(job, scenes, index)
            if why_stop(job, plan) is not None:
                raise _PlanChanged(plan)
            kept = plan.accepted if job.accepted != AcceptedImages.REPLACE else 0
            job_progress(
                job,
                status=Status.ATTACHING if job.images else Status.WRITING,
                written_at=timezone.now(),
                images_created=plan.created,
                images_updated=plan.changed - kept,
                images_unchanged=plan.unchanged,
                images_kept=kept,
                plan=plan.as_dict(),
                **values,
            )
    except _PlanChanged as changed:
        stopped(job, changed.plan, **values)
        return False
    except IntegrityError:
        raise failed(
            "Images were added to the collection while this import ran, under names it uses; "
            "nothing was imported. Run the import again."
        ) from None
    return True


def _write_all(job: ImportJob, scenes: Iterable[Scene], index: VocabularyIndex) -> Plan:
    """A chunk of scenes at a time (memory stays flat), all in the caller's transaction; the plan of
    what was written."""
    existing = existing_images(job)
    state = _imported_state(job, timezone.now())
    plan = Plan()
    for chunk in chunks(scenes):
        _write_chunk(job, chunk, existing, state, index, plan)
    return plan


def _write_chunk(
    job: ImportJob,
    scenes: list[Scene],
    existing: dict[str, int],
    state: dict[str, Any],
    index: VocabularyIndex,
    plan: Plan,
) -> None:
    """Create the new images, replace the annotations that change (an accepted image's only with
    `AcceptedImages.REPLACE`), leave the others as they are; each image's change added to `plan`."""
    changes = image_changes(scenes, existing, index, lock=True)
    replace_accepted = job.accepted == AcceptedImages.REPLACE
    new: list[Image] = []
    replaced: list[int] = []
    identified: list[tuple[int, str]] = []  # replaced images and their ids in the source
    written: list[tuple[Scene, Image]] = []
    for scene, (change, image) in zip(scenes, changes, strict=True):
        plan.add(scene.image, change)
        if image is None:  # Change.CREATE
            image = Image(
                collection=job.collection,
                original_name=scene.image,
                source_id=scene.source_id,
                width=scene.width,
                height=scene.height,
                split=job.split,
                uploaded_by=job.created_by,
                **state,
            )
            new.append(image)
        elif change is Change.UNCHANGED or (change is Change.REPLACE_ACCEPTED and not replace_accepted):
            continue
        else:
            replaced.append(image.pk)
            if scene.source_id:
                identified.append((image.pk, scene.source_id))
        written.append((scene, image))
    Image.objects.bulk_create(new, batch_size=2000)
    for ids in chunked(replaced):
        Image.objects.filter(pk__in=ids).update(**state)
    for pk, source_id in identified:
        Image.objects.filter(pk=pk).update(source_id=source_id)
    annotation_delete(image_ids=replaced)
    annotation_insert(
        images=[image for _, image in written], scenes=[scene for scene, _ in written], index=index
    )


def _imported_state(job: ImportJob, now) -> dict[str, Any]:
    """Where imported images go: to accepted for a reviewed dataset, to review for a complete source,
    else to the annotation queue as drafts to complete. Nobody on the platform annotated them, so any
    annotator may complete them and any reviewer may review them."""
    stage = Stage.ACCEPTED if job.mark_reviewed else Stage.REVIEW if job.complete else Stage.ANNOTATE
    return {
        "stage": stage,
        "annotator": None,
        "annotated_at": now,
        "lease_holder": None,
        "lease_expires_at": None,
        "returned": False,
        "review_comment": "",
        "reviewed_by": job.created_by if job.mark_reviewed else None,
        "reviewed_at": now if job.mark_reviewed else None,
    }
