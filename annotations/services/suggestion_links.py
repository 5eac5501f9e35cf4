"""Accepting a model's suggestion is saving (decision 0078, "Annotator side").

An object of a saved annotation that names a suggestion (`objects[i].suggestion`) is that suggestion
accepted. A save (`annotations.services.annotation`) calls `suggestions_link` to check what the objects
name before anything is written, and `suggestions_record` once the objects are stored: it links each
object to its suggestion, works out on the server whether the person changed it, and sets the
suggestions' statuses. Imports store no suggestion: they never call these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils import timezone

from annotations.errors import AnnotationErrorCode
from annotations.models import Image, ObjectAnnotation, Prediction, PredictionStatus
from kernel.scene import Scene
from vtt_site.errors import ApplicationError

# A saved box within this many pixels of the suggestion's, on each of x, y, w and h, is the suggestion's
# box: the page rounds what it draws, and the server clips a box to the image.
BOX_TOLERANCE_PX = 1.0


def suggestions_link(image: Image, document: Mapping[str, Any]) -> list[Prediction | None]:
    """Per object of the document, the suggestion it names (or None). A suggestion must be one of this
    image's and named by one object only; a refusal names the object (`objects[2].suggestion`)."""
    named = [_suggestion_id(raw) for raw in _objects(document)]
    wanted = {pk for pk in named if pk is not None}
    chosen = Prediction.objects.filter(pk__in=wanted, image=image).select_related("object_type")
    found = {p.pk: p for p in chosen} if wanted else {}  # a hand-drawn annotation asks nothing
    problems: dict[str, list[str]] = {}
    first_at: dict[int, int] = {}
    for i, pk in enumerate(named):
        if pk is None:
            continue
        if pk not in found:
            problems[f"objects[{i}].suggestion"] = ["Not a suggestion for this image."]
        elif pk in first_at:
            problems[f"objects[{i}].suggestion"] = [f"The same suggestion as objects[{first_at[pk]}]."]
        else:
            first_at[pk] = i
    if problems:
        where, (why,) = next(iter(problems.items()))
        raise ApplicationError(
            AnnotationErrorCode.SUGGESTION_NOT_OF_IMAGE,
            f"{where}: {why} Leave the suggestion out of the object, or reload the image's suggestions.",
            fields=problems,
        )
    return [found[pk] if pk is not None else None for pk in named]


def _objects(document: Mapping[str, Any]) -> list[Any]:
    objects = document.get("objects", []) if isinstance(document, Mapping) else []
    return objects if isinstance(objects, list) else []


def _suggestion_id(raw: Any) -> int | None:
    """The suggestion an object names: an id, or the record's `{"id": ...}` as a read gives it back.
    The API's serializer has checked the shape; anything else names none."""
    value = raw.get("suggestion") if isinstance(raw, Mapping) else None
    if isinstance(value, Mapping):
        value = value.get("id")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def suggestions_record(*, image: Image, scene: Scene, links: Sequence[Prediction | None], user: Any) -> None:
    """After the image's objects were stored (positions 0..N-1 in the scene's order): each object linked
    to its suggestion with `suggestion_edited` worked out here, named suggestions accepted, and a
    suggestion accepted before but named by no object any more rejected: the person deleted its box."""
    now = timezone.now()
    chosen = {i: p for i, p in enumerate(links) if p is not None}
    if chosen:
        rows = list(ObjectAnnotation.objects.filter(image=image, position__in=list(chosen)))
        for row in rows:
            prediction = chosen[row.position]
            row.suggestion = prediction
            row.suggestion_edited = suggestion_edited(prediction, scene.objects[row.position])
        ObjectAnnotation.objects.bulk_update(rows, ["suggestion", "suggestion_edited"])
    accepted_ids = [p.pk for p in chosen.values()]
    Prediction.objects.filter(pk__in=accepted_ids).exclude(status=PredictionStatus.ACCEPTED).update(
        status=PredictionStatus.ACCEPTED, decided_by=user, decided_at=now
    )
    Prediction.objects.filter(image=image, status=PredictionStatus.ACCEPTED).exclude(
        pk__in=accepted_ids
    ).update(status=PredictionStatus.REJECTED, decided_by=user, decided_at=now)


def suggestion_edited(prediction: Prediction, obj: Any) -> bool:
    """Whether the saved object differs from the suggestion in type, box (beyond BOX_TOLERANCE_PX) or
    attributes. Worked out from what was stored, never taken from the client."""
    if obj.type != prediction.object_type.name:
        return True
    box = (prediction.x, prediction.y, prediction.w, prediction.h)
    if any(abs(a - b) > BOX_TOLERANCE_PX for a, b in zip(obj.bbox, box, strict=True)):
        return True
    return set(obj.attributes) != set(prediction.attributes)
