"""A collection's crowd settings, and what happens when they change.

Changing the overlap (annotators per image) is refused while any image is part-way: crowd copies
handed out but not merged, an image in review, or an image whose single annotator has begun it. Those
images were handed out under the old rule and would be merged, or reviewed, under the new one; finish
or release them first. The other settings apply from the next hand-out or merge on; merges already
made keep the figures they were made with.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from annotations.models import Collection, Image, Stage
from crowd.errors import CrowdErrorCode
from crowd.models import OVERLAP_MAX, Copy, CrowdSettings
from vtt_site.errors import ApplicationError, CommonErrorCode, ConflictError

# name -> (lowest, highest, whether the lowest is allowed, what a person reads)
RANGES: dict[str, tuple[float, float, bool, str]] = {
    "overlap": (1, OVERLAP_MAX, True, f"a whole number from 1 to {OVERLAP_MAX}"),
    "iou_threshold": (0, 1, False, "above 0 and at most 1"),
    "agreement_threshold": (0, 1, True, "from 0 to 1"),
    "gold_rate": (0, 1, True, "from 0 to 1 (0.05 is 5%)"),
    "pause_threshold": (0, 1, True, "from 0 to 1"),
    "min_gold": (1, 1000, True, "a whole number from 1 to 1000"),
}
WHOLE = ("overlap", "min_gold")
FIELDS = (*RANGES, "auto_accept")


def check_settings(values: dict[str, Any]) -> None:
    """400 naming every value out of range; nothing is written."""
    problems: dict[str, list[str]] = {}
    for name, value in values.items():
        if name == "auto_accept":
            if not isinstance(value, bool):
                problems[name] = ["Must be true or false."]
            continue
        low, high, low_ok, said = RANGES[name]
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        whole = not (name in WHOLE and numeric and value != int(value))
        inside = numeric and (value >= low if low_ok else value > low) and value <= high
        if not (numeric and whole and inside):
            problems[name] = [f"Must be {said}."]
    if problems:
        names = ", ".join(problems)
        raise ApplicationError(
            CommonErrorCode.INVALID, f"Out of range: {names}. Nothing was changed.", fields=problems
        )


def images_part_way(collection: Collection) -> int:
    """Images handed out under the current overlap and not yet through: see the module's docstring."""
    crowd_work = Copy.objects.filter(image__collection=collection, gold=False, image__stage=Stage.ANNOTATE)
    single_work = Image.objects.filter(collection=collection).filter(
        Q(stage=Stage.REVIEW)
        | Q(stage=Stage.ANNOTATE, annotated_at__isnull=False)
        | Q(stage=Stage.ANNOTATE, lease_expires_at__gt=timezone.now())
    )
    crowd_images = set(crowd_work.values_list("image_id", flat=True).distinct())
    return len(crowd_images | set(single_work.values_list("pk", flat=True)))


@transaction.atomic
def crowd_settings_update(*, collection: Collection, values: dict[str, Any]) -> CrowdSettings:
    """Change some of the collection's crowd settings (the others keep their values)."""
    unknown = sorted(set(values) - set(FIELDS))
    if unknown:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            f"Unknown setting: {', '.join(unknown)}.",
            fields={name: ["Not a crowd setting."] for name in unknown},
        )
    check_settings(values)
    # The collection's row locked: two changes, or a change and a hand-out, never interleave.
    Collection.objects.select_for_update().get(pk=collection.pk)
    settings, _ = CrowdSettings.objects.get_or_create(collection=collection)
    if "overlap" in values and int(values["overlap"]) != settings.overlap:
        part_way = images_part_way(collection)
        if part_way:
            raise ConflictError(
                CrowdErrorCode.OVERLAP_IN_PROGRESS,
                f"{part_way} images are part-way through annotation or review under {settings.overlap} "
                "annotators per image: finish or release them before changing it. Nothing was changed.",
            )
    for name, value in values.items():
        setattr(settings, name, int(value) if name in WHOLE else value)
    settings.updated_at = timezone.now()
    settings.save()
    return settings
