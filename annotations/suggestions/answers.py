"""Reading a /predict answer of a Label Studio ML backend into boxes of the vocabulary.

The answer is `{"results": [prediction, ...]}`, one prediction per task sent, in the order sent (Label
Studio matches them by position; a prediction may also say which task it is for, `task`). A prediction
is `{"result": [...], "score": ..., "model_version": ...}`, or a list of such (several predictions for
one task: the first is read). Its `result` holds regions:

- `rectanglelabels`: `value` has `x`, `y`, `width`, `height` in percent of the image and
  `rectanglelabels`, one label, an object type of the vocabulary; `score` optional, from 0 to 1.
- `choices` with the `id` of a box: `value.choices` are attribute values of that box's type (the
  per-region choices of the labeling configuration, `annotations.suggestions.config`).

What does not fit is refused region by region, each with a reason a person can act on: an unknown label,
a box outside the image or without area, an attribute not of the box's type, two values of an exclusive
group, a malformed region. An answer that cannot be matched to the task (not an answer, the wrong task,
the wrong number of predictions, more boxes than an image may hold) is refused whole (`AnswerRefused`).
Plain Python: no Django, no HTTP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from kernel.vocabulary import ObjectType, Vocabulary

MIN_SIDE_PIXELS = 1.0  # a clipped box narrower or lower than this is no box
MODEL_VERSION_MAX = 200  # Prediction.model_version's length


class AnswerRefused(Exception):
    """The answer as a whole cannot be used for the image; `reason` says why, for a person."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Candidate:
    """A box the model proposed, in pixels, clipped to the image; attributes in the vocabulary's order."""

    type: str
    box: tuple[float, float, float, float]  # x, y, width, height
    attributes: tuple[str, ...]
    score: float | None


@dataclass(frozen=True)
class Refusal:
    region: str  # the region's id, or its place in the result ("#3")
    reason: str

    def __str__(self) -> str:
        return f"region {self.region}: {self.reason}"


@dataclass
class Reading:
    candidates: list[Candidate] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    model_version: str = ""


class _Refused(Exception):
    """One region is refused (caught per region)."""


def read_answer(
    answer: Any, *, task_id: int, width: int, height: int, vocabulary: Vocabulary, max_boxes: int
) -> Reading:
    """The boxes of the answer to a /predict request that sent the one task `task_id`."""
    prediction = _the_prediction(answer, task_id)
    reading = Reading(model_version=_model_version(prediction.get("model_version")))
    results = prediction.get("result", [])
    if not isinstance(results, list):
        raise AnswerRefused("The prediction's result is not a list of regions.")
    boxes, choices = _regions(results, reading)
    if len(boxes) > max_boxes:
        raise AnswerRefused(
            f"The answer holds {len(boxes):,} boxes; an image may hold at most {max_boxes:,}."
        )
    default_score = prediction.get("score")
    for region, item in boxes.items():
        try:
            reading.candidates.append(
                _candidate(item, choices.pop(region, []), vocabulary, width, height, default_score)
            )
        except _Refused as exc:
            reading.refused.append(Refusal(region, str(exc)))
    for region in choices:
        reading.refused.append(Refusal(region, "choices for a region that has no box"))
    return reading


def _the_prediction(answer: Any, task_id: int) -> dict[str, Any]:
    results = answer.get("results") if isinstance(answer, dict) else None
    if not isinstance(results, list):
        raise AnswerRefused("The answer is not a prediction answer: it has no list of results.")
    if len(results) != 1:
        raise AnswerRefused(
            f"The answer holds {len(results)} predictions for the 1 task sent, so none can be matched to "
            "the image."
        )
    prediction = results[0]
    if isinstance(prediction, list):  # several predictions for the task: the first is read
        prediction = prediction[0] if prediction else {"result": []}
    if not isinstance(prediction, dict):
        raise AnswerRefused("The prediction is not an object with a result.")
    named = prediction.get("task")
    if named is not None and str(named) != str(task_id):
        raise AnswerRefused("The prediction is for another task than the one sent.")
    return prediction


def _model_version(value: Any) -> str:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value).strip()[:MODEL_VERSION_MAX]
    return ""


def _regions(results: list[Any], reading: Reading) -> tuple[dict[str, dict], dict[str, list[dict]]]:
    """The box results by region id, and the choices results by the id of the box they belong to."""
    boxes: dict[str, dict] = {}
    choices: dict[str, list[dict]] = {}
    for place, item in enumerate(results, start=1):
        if not isinstance(item, dict):
            reading.refused.append(Refusal(f"#{place}", "not a region object"))
            continue
        raw_id = item.get("id")
        region = str(raw_id) if isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool) else ""
        kind = item.get("type")
        if kind == "rectanglelabels":
            region = region or f"#{place}"
            if region in boxes:
                reading.refused.append(Refusal(region, "a second box with the same id"))
            else:
                boxes[region] = item
        elif kind == "choices":
            if not region:
                reading.refused.append(Refusal(f"#{place}", "choices not tied to a box are not read"))
            else:
                choices.setdefault(region, []).append(item)
        else:
            name = kind if isinstance(kind, str) else "unknown"
            reading.refused.append(
                Refusal(
                    region or f"#{place}",
                    f"{name[:40]!r} results are not read (rectanglelabels and choices are)",
                )
            )
    return boxes, choices


def _candidate(
    item: dict, choices: list[dict], vocabulary: Vocabulary, width: int, height: int, default_score: Any
) -> Candidate:
    value = item.get("value")
    if not isinstance(value, dict):
        raise _Refused("the box has no value")
    object_type = _object_type(value, vocabulary)
    box = _pixel_box(value, width, height)
    score = _score(item.get("score", default_score))
    attributes = _attributes(choices, object_type)
    return Candidate(object_type.name, box, attributes, score)


def _object_type(value: dict, vocabulary: Vocabulary) -> ObjectType:
    labels = value.get("rectanglelabels")
    if not isinstance(labels, list) or len(labels) != 1 or not isinstance(labels[0], str):
        raise _Refused("a box must name exactly one label")
    if labels[0] not in vocabulary.type_index:
        raise _Refused(f"the label {labels[0][:100]!r} is not an object type of the vocabulary")
    return vocabulary.object_type(labels[0])


def _number(value: dict, key: str) -> float:
    number = value.get(key)
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not math.isfinite(number):
        raise _Refused(f"the box's {key} is not a number")
    return float(number)


def _pixel_box(value: dict, width: int, height: int) -> tuple[float, float, float, float]:
    """Percent of the image -> pixels, clipped to the image."""
    x, y, w, h = (_number(value, key) for key in ("x", "y", "width", "height"))
    rotation = value.get("rotation", 0) or 0
    if isinstance(rotation, bool) or not isinstance(rotation, (int, float)) or abs(rotation) > 1e-6:
        raise _Refused("rotated boxes are not read")
    if w <= 0 or h <= 0:
        raise _Refused("the box has no width or no height")
    x0, y0 = max(0.0, x / 100 * width), max(0.0, y / 100 * height)
    x1, y1 = min(float(width), (x + w) / 100 * width), min(float(height), (y + h) / 100 * height)
    if x1 - x0 < MIN_SIDE_PIXELS or y1 - y0 < MIN_SIDE_PIXELS:
        raise _Refused("the box lies outside the image")
    return (x0, y0, x1 - x0, y1 - y0)


def _score(score: Any) -> float | None:
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1:
        raise _Refused("the score is not a number from 0 to 1")
    return float(score)


def _attributes(choices: list[dict], object_type: ObjectType) -> tuple[str, ...]:
    """The values chosen for the box: each of its type, at most one per exclusive group."""
    chosen: set[str] = set()
    for item in choices:
        value = item.get("value")
        values = value.get("choices") if isinstance(value, dict) else None
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise _Refused("its choices are not a list of attribute values")
        for name in values:
            if name not in object_type.bit_of:
                raise _Refused(f"{name[:100]!r} is not an attribute of a {object_type.name}")
        chosen.update(values)
    for group in object_type.groups:
        if group.exclusive and len(chosen.intersection(group.values)) > 1:
            raise _Refused(f"more than one value of the group {group.name!r}, which takes one")
    return tuple(sorted(chosen, key=object_type.bit_of.__getitem__))
