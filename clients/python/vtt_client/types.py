"""Typed questions, answers and scores, built from the API's structured JSON (never from English)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
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

        try:
            from PIL import Image as PILImage
        except ModuleNotFoundError as missing:  # say so in the words of the install, not of an import
            raise ModuleNotFoundError(
                "pil_image() needs Pillow: pip install 'vtt-client[pillow]' (or use image_bytes())",
                name="PIL",
            ) from missing

        return PILImage.open(io.BytesIO(self.image_bytes())).convert("RGB")

    def label_question(self, label: str) -> UniqueQuestion | None:
        """The uniqueness question that defined a label (its region and attributes)."""
        return next((entry.question for entry in self.labels if entry.label == label), None)


@dataclass(frozen=True)
class ExistQuestion(Question):
    """Is there a `type` with `attributes` in `region`, other than the labelled objects in `excluding`?"""

    type: str = ""
    attributes: tuple[str, ...] = ()
    region: Region = Region("whole", (0, 0, 0, 0))
    # The labels of this type made so far in the stream, which the question does not count ("a vehicle
    # other than vehicle 1"); () from a server older than this field.
    excluding: tuple[str, ...] = ()


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
    p_yes: float | None = None  # the probability of yes the system gave with its answer, as stored
    # The question asked next in the answered one's place: the stream's next, or once the stream is
    # finished, the first of the stream opened in its place (None: none to hand out now).
    next: Question | None = None


@dataclass(frozen=True)
class HistoryEntry:
    """An earlier answered step of the current stream, as the server recorded it: the question, what the
    system answered (with its `p_yes`, if it gave one), the truth it was then told, and the `label` a yes
    to a uniqueness question made."""

    step: int
    question: Question
    text: str
    answer: bool
    p_yes: float | None
    truth: bool
    label: str | None


@dataclass(frozen=True)
class Proportion:
    """A share of questions answered right, with its 95% Wilson interval; printed, it reads as a person
    says it: "0.552 (95% interval 0.525 to 0.579) over 1,286 questions"."""

    value: float | None
    successes: int
    trials: int
    low: float | None
    high: float | None

    def __str__(self) -> str:
        if self.value is None or self.low is None or self.high is None:
            return "not known yet (no question answered)"
        questions = "question" if self.trials == 1 else "questions"
        return f"{self.value:.3f} (95% interval {self.low:.3f} to {self.high:.3f}) over {self.trials:,} {questions}"


@dataclass(frozen=True)
class Score:
    accuracy: Proportion
    by_kind: dict[str, Proportion]
    by_position: list[Proportion]
    first_mistake: dict[str, Any]
    complete: bool
    # The scores of the probabilities given (p_yes): `brier`, `log_loss`, `calibration_error` (each
    # {value, low, high}), `given` of `questions`, `reliability`; None when no p_yes was given.
    forecasts: dict[str, Any] | None = None

    def __str__(self) -> str:
        """What `print(session.score())` shows: the accuracy, and whether the session is still going."""
        so_far = "" if self.complete else " so far (the session is not over)"
        return f"accuracy {self.accuracy}{so_far}"


@dataclass(frozen=True)
class Mean:
    """A mean with its 95% normal interval (the position of the first mistake, over streams)."""

    mean: float | None
    streams: int
    low: float | None
    high: float | None


@dataclass(frozen=True)
class StreamScore:
    stream: int  # its position in the test, 0-based
    questions: int
    answered: int
    correct: int
    accuracy: Proportion  # an unanswered question (the deadline passed) counts as wrong
    first_mistake: int | None  # 1-based; None: no mistake


@dataclass(frozen=True)
class SessionScore:
    """A finished (or expired) session of a system, as whoever asks may see it."""

    session: int
    test_id: int
    test_name: str
    test_state: str  # "published" (it can still be taken) or "archived"
    state: str  # "finished" or "expired"
    ended_at: datetime | None
    accuracy: Proportion
    by_kind: dict[str, Proportion]
    first_mistake: Mean
    streams: list[StreamScore] | None  # None: withheld, `streams_withheld` says why
    streams_withheld: str


@dataclass(frozen=True)
class SystemScores:
    """A vision system's page: the scores of its finished sessions (GET /evaluation/systems/{id}/scores/)."""

    system_id: int
    name: str
    owner: str
    description: str
    url: str
    public: bool
    baseline: str  # the built-in baseline it is, or ""
    sessions: list[SessionScore]
    left_out: list[tuple[int, str]]  # (id, name) of tests your system is taking: left out until it is done


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
        "labels": tuple(_label_from(e) for e in data.get("labels", [])) if labels else (),
        "raw": data,
        "_session": session,
    }
    kind = q["kind"]
    if kind in ("exist", "unique"):
        cls = ExistQuestion if kind == "exist" else UniqueQuestion
        return cls(
            **common,
            type=q["type"],
            attributes=tuple(q.get("attributes", [])),
            region=_region(q["region"]),
            excluding=tuple(q.get("excluding", [])),
        )
    if kind in ("attr", "attr_and", "attr_or"):
        return AttributeQuestion(**common, label=q["label"], attributes=tuple(q["attributes"]))
    if kind == "rel":
        return RelationshipQuestion(
            **common, subject=q["subject"], relationship=q["relationship"], object=q["object"]
        )
    raise ValueError(f"Unknown question kind {kind!r}")


def _label_from(data: dict[str, Any]) -> Label:
    """A label and the question whose yes made it: only a uniqueness question labels an object."""
    question = question_from(data, labels=False)
    if not isinstance(question, UniqueQuestion):
        raise ValueError(f"A label's question is a uniqueness question, not {question.kind!r}")
    return Label(data["label"], data["step"], question)


def history_entry_from(data: dict[str, Any]) -> HistoryEntry:
    """An entry of the `history` that comes with the current question."""
    return HistoryEntry(
        step=data["step"],
        question=question_from(data, labels=False),
        text=data["text"],
        answer=data["answer"] == "yes",
        p_yes=data.get("p_yes"),
        truth=data["truth"] == "yes",
        label=data.get("label"),
    )


def proportion_from(data: dict[str, Any]) -> Proportion:
    return Proportion(data["value"], data["successes"], data["trials"], data["low"], data["high"])


def score_from(data: dict[str, Any]) -> Score:
    return Score(
        accuracy=proportion_from(data["accuracy"]),
        by_kind={k: proportion_from(v) for k, v in data["by_kind"].items()},
        by_position=[proportion_from(p) for p in data["by_position"]],
        first_mistake=data["first_mistake"],
        complete=data["complete"],
        forecasts=data.get("forecasts"),
    )


def system_scores_from(data: dict[str, Any]) -> SystemScores:
    system = data["system"]
    return SystemScores(
        system_id=system["id"],
        name=system["name"],
        owner=system["owner"],
        description=system["description"],
        url=system["url"],
        public=system["public"],
        baseline=system["baseline"],
        sessions=[_session_score_from(s) for s in data["sessions"]],
        left_out=[(t["id"], t["name"]) for t in data["left_out"]],
    )


def _session_score_from(data: dict[str, Any]) -> SessionScore:
    streams = data["streams"]
    return SessionScore(
        session=data["session"],
        test_id=data["test"]["id"],
        test_name=data["test"]["name"],
        test_state=data["test"]["state"],
        state=data["state"],
        ended_at=datetime.fromisoformat(data["ended_at"]) if data["ended_at"] else None,
        accuracy=proportion_from(data["accuracy"]),
        by_kind={k: proportion_from(v) for k, v in data["by_kind"].items()},
        first_mistake=Mean(**data["first_mistake"]),
        streams=None
        if streams is None
        else [
            StreamScore(
                stream=s["stream"],
                questions=s["questions"],
                answered=s["answered"],
                correct=s["correct"],
                accuracy=proportion_from(s["accuracy"]),
                first_mistake=s["first_mistake"],
            )
            for s in streams
        ],
        streams_withheld=data["streams_withheld"],
    )
