"""Typed questions, answers and scores, built from the API's structured JSON (never from English)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Region:
    id: str
    box: tuple[float, float, float, float]  # x, y, width, height in pixels

    @property
    def x0(self) -> float:
        return self.box[0]

    @property
    def y0(self) -> float:
        return self.box[1]

    @property
    def x1(self) -> float:
        return self.box[0] + self.box[2]

    @property
    def y1(self) -> float:
        return self.box[1] + self.box[3]


@dataclass(frozen=True)
class Image:
    id: int
    width: int
    height: int
    url: str


@dataclass(frozen=True)
class Question:
    """A question of a stream. `stream` and `step` are its position (both 0-based)."""

    kind: str
    stream: int
    step: int
    streams: int
    text: str
    image: Image
    labels: tuple[Label, ...] = field(default=())
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    _session: Any = field(default=None, compare=False, repr=False)

    def image_bytes(self) -> bytes:
        return self._session.image_bytes(self.image)

    def pil_image(self):
        """The image as a Pillow image (needs `pip install vtt-client[pillow]`)."""
        import io

        from PIL import Image as PILImage

        return PILImage.open(io.BytesIO(self.image_bytes())).convert("RGB")

    def label_question(self, label: str) -> UniqueQuestion | None:
        """The uniqueness question that defined a label (its region and attributes)."""
        return next((entry.question for entry in self.labels if entry.label == label), None)


@dataclass(frozen=True)
class ExistQuestion(Question):
    """Is there a `type` with `attributes` in `region` (not counting labelled objects)?"""

    type: str = ""
    attributes: tuple[str, ...] = ()
    region: Region = Region("whole", (0, 0, 0, 0))


@dataclass(frozen=True)
class UniqueQuestion(ExistQuestion):
    """Is there a unique such object? A yes labels it."""


@dataclass(frozen=True)
class AttributeQuestion(Question):
    """Does object `label` have the attribute (attr), both (attr_and) or either (attr_or)?"""

    label: str = ""
    attributes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RelationshipQuestion(Question):
    """Is `subject` `relationship` `object`?"""

    subject: str = ""
    relationship: str = ""
    object: str = ""


@dataclass(frozen=True)
class Label:
    label: str
    step: int
    question: UniqueQuestion


@dataclass(frozen=True)
class AnswerResult:
    answer: bool
    correct_answer: bool
    correct: bool
    label: str | None
    stream_ended: bool
    session_finished: bool


@dataclass(frozen=True)
class Proportion:
    value: float | None
    successes: int
    trials: int
    low: float | None
    high: float | None


@dataclass(frozen=True)
class Score:
    accuracy: Proportion
    by_kind: dict[str, Proportion]
    by_position: list[Proportion]
    first_mistake: dict[str, Any]
    complete: bool


def _region(data: dict[str, Any]) -> Region:
    return Region(str(data["id"]), tuple(float(v) for v in data["box"]))  # type: ignore[arg-type]


def question_from(data: dict[str, Any], session: Any = None, *, labels: bool = True) -> Question:
    """A typed question from the API's `current` (or a label's defining question)."""
    q = data.get("question", data)
    common: dict[str, Any] = {
        "kind": q["kind"],
        "stream": data.get("stream", -1),
        "step": data.get("step", -1),
        "streams": data.get("streams", 0),
        "text": data.get("text", ""),
        "image": Image(**data["image"]) if "image" in data else Image(0, 0, 0, ""),
        "labels": tuple(
            Label(e["label"], e["step"], question_from(e, labels=False)) for e in data.get("labels", [])
        )
        if labels
        else (),
        "raw": data,
        "_session": session,
    }
    kind = q["kind"]
    if kind in ("exist", "unique"):
        cls = ExistQuestion if kind == "exist" else UniqueQuestion
        return cls(
            **common, type=q["type"], attributes=tuple(q.get("attributes", [])), region=_region(q["region"])
        )
    if kind in ("attr", "attr_and", "attr_or"):
        return AttributeQuestion(**common, label=q["label"], attributes=tuple(q["attributes"]))
    if kind == "rel":
        return RelationshipQuestion(
            **common, subject=q["subject"], relationship=q["relationship"], object=q["object"]
        )
    raise ValueError(f"Unknown question kind {kind!r}")


def proportion_from(data: dict[str, Any]) -> Proportion:
    return Proportion(data["value"], data["successes"], data["trials"], data["low"], data["high"])


def score_from(data: dict[str, Any]) -> Score:
    return Score(
        accuracy=proportion_from(data["accuracy"]),
        by_kind={k: proportion_from(v) for k, v in data["by_kind"].items()},
        by_position=[proportion_from(p) for p in data["by_position"]],
        first_mistake=data["first_mistake"],
        complete=data["complete"],
    )
