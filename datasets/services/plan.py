"""What an import would change, planned before it writes (decision 0071).

Images created, existing images changed (those nobody annotated yet, and accepted ones, counted apart)
and unchanged (the stored annotation, read back as a record, equals the imported one: not rewritten, its
stage kept). When the import would replace existing annotations and the importer has not chosen what
becomes of accepted images (`accepted`), or was asked to preview, the job stops `previewed` holding the
plan. The writing phase plans again under its locks and writes only what was planned.
"""

from __future__ import annotations

import hashlib
from collections import abc
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from annotations.models import Image, Stage
from annotations.selectors.annotation import object_id, scene_records
from annotations.selectors.vocabularies import VocabularyIndex
from datasets.models import ImportJob
from datasets.services.common import Status
from kernel.scene import Scene
from vtt_site.jobs import job_wait

WRITE_CHUNK = 500  # scenes planned, and written, per round of queries


class Change(StrEnum):
    """What an import does to one image of its file."""

    CREATE = "create"  # no image of the collection has its name
    FILL = "fill"  # an existing image nobody annotated yet (uploaded pixels): its first annotation
    REPLACE = "replace"  # an existing image's annotation, not accepted, replaced by a different one
    REPLACE_ACCEPTED = "accepted"  # the same, on an accepted image: only with AcceptedImages.REPLACE
    UNCHANGED = "unchanged"  # the stored annotation equals the imported one: not rewritten


ACCEPTED_SHOWN = 20  # names of accepted images a plan lists


@dataclass
class Plan:
    """The counts of an import's changes, and a digest of which image gets which change: two plans
    with the same digest change the same images in the same way."""

    created: int = 0
    changed: int = 0  # existing images whose annotation the import changes (the three below included)
    unannotated: int = 0  # of those, images nobody annotated yet
    accepted: int = 0  # of those, accepted images
    unchanged: int = 0
    accepted_names: list[str] = field(default_factory=list)
    _digest: Any = field(default_factory=hashlib.sha256, repr=False)

    def add(self, name: str, change: Change) -> None:
        self._digest.update(f"{change}\0{name}\n".encode())
        if change is Change.CREATE:
            self.created += 1
        elif change is Change.UNCHANGED:
            self.unchanged += 1
        else:
            self.changed += 1
            self.unannotated += change is Change.FILL
            if change is Change.REPLACE_ACCEPTED:
                self.accepted += 1
                if len(self.accepted_names) < ACCEPTED_SHOWN:
                    self.accepted_names.append(name)

    @property
    def overwrites(self) -> int:
        """Existing annotations the import would replace: what a person must see before it does."""
        return self.changed - self.unannotated

    @property
    def digest(self) -> str:
        return self._digest.hexdigest()

    def as_dict(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "changed": self.changed,
            "unannotated": self.unannotated,
            "accepted": self.accepted,
            "unchanged": self.unchanged,
            "accepted_names": self.accepted_names,
            "digest": self.digest,
        }


def planned(job: ImportJob, scenes: Iterable[Scene], index: VocabularyIndex) -> Plan:
    """What writing `scenes` would change now; reads only (the writing phase checks it again under
    its locks, in case the collection changes meanwhile)."""
    existing = existing_images(job)
    plan = Plan()
    for chunk in chunks(scenes):
        for scene, (change, _) in zip(chunk, image_changes(chunk, existing, index), strict=True):
            plan.add(scene.image, change)
    return plan


def stopped(job: ImportJob, plan: Plan, **values: Any) -> bool:
    """Stop the job, holding `plan` (and `values`: the refused entries, the mapping's report) for a
    person to see, when it may not go on to write it."""
    message = why_stop(job, plan)
    if message is None:
        return False
    job_wait(job, Status.PREVIEWED, message, plan=plan.as_dict(), accepted="", progress=1.0, **values)
    return True


def why_stop(job: ImportJob, plan: Plan) -> str | None:
    """The message of a stop before writing `plan`, or None to write it. The import stops when asked
    to preview, when it would replace existing annotations and nobody chose what becomes of accepted
    images, and when the plan differs from the one a person went on from (the collection changed)."""
    nothing = "Nothing has been imported yet."
    if job.preview:
        return f"Preview: this is what the import would do. {nothing} Go on, or cancel."
    if job.accepted:
        if job.plan and job.plan.get("digest") != plan.digest:
            return (
                "The collection changed since the preview (annotations were saved, reviewed or added "
                f"meanwhile): this is what the import would do now. {nothing} Choose again, or cancel."
            )
        return None
    if plan.overwrites:
        accepted = f", {plan.accepted} of them accepted" if plan.accepted else ""
        return (
            f"This import would replace the annotations of {plan.overwrites} existing "
            f"image{'' if plan.overwrites == 1 else 's'}{accepted}. {nothing} Go on, or cancel."
        )
    return None


def existing_images(job: ImportJob) -> dict[str, int]:
    return dict(job.collection.images.values_list("original_name", "id"))


def chunks(scenes: Iterable[Scene]) -> Iterator[list[Scene]]:
    chunk: list[Scene] = []
    for scene in scenes:
        chunk.append(scene)
        if len(chunk) == WRITE_CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def image_changes(
    scenes: list[Scene], existing: abc.Mapping[str, int], index: VocabularyIndex, *, lock: bool = False
) -> list[tuple[Change, Image | None]]:
    """What the import does to each image of a chunk, with the existing image it changes. The stored
    annotation is read back through the selector of records (`scene_records`) and compared with the
    record the imported scene would read back as, so that every field a record carries is compared.
    `lock`: the existing images stay locked until the transaction ends (the writing phase)."""
    rows = Image.objects.filter(pk__in=[existing[s.image] for s in scenes if s.image in existing])
    if lock:
        rows = rows.select_for_update(of=("self",)).order_by("pk")
    images = {image.original_name: image for image in rows}
    stored = {
        record["image"]: record
        for record in scene_records(images=[i for i in images.values() if i.annotated_at], index=index)
    }
    changes: list[tuple[Change, Image | None]] = []
    for scene in scenes:
        image = images.get(scene.image)
        if image is None:
            changes.append((Change.CREATE, None))
        elif image.annotated_at is None:
            changes.append((Change.FILL, image))
        elif stored[scene.image] == _as_stored(scene, index):
            changes.append((Change.UNCHANGED, image))
        elif image.stage == Stage.ACCEPTED:
            changes.append((Change.REPLACE_ACCEPTED, image))
        else:
            changes.append((Change.REPLACE, image))
    return changes


def _as_stored(scene: Scene, index: VocabularyIndex) -> dict[str, Any]:
    """The record `scene` reads back as once stored: its objects named o1..oN in their order."""
    document = scene.to_document(index.core)
    renamed = {obj["id"]: object_id(position) for position, obj in enumerate(document["objects"])}
    for obj in document["objects"]:
        obj["id"] = renamed[obj["id"]]
    for link in document["relationships"]:
        link["subject"], link["object"] = renamed[link["subject"]], renamed[link["object"]]
    return document
