"""What the blind guesser sees: the question, the history and the engine's p; never an image.

One row per answered (yes/no) step of a stream. Features (all numbers, documented in docs/engine.md):
- the question: kind (one-hot), the type(s) it is about (one-hot), number of attributes, the attributes
  it names (multi-hot over the vocabulary), the relationship (one-hot), its region's box and area;
- its place in the stream: position among the answered questions, proposals so far;
- the history: answers so far (count, yes count, yes fraction), the previous answer, objects
  instantiated per type; for a question about an object (attribute or relationship question), the
  attributes and region of the uniqueness question that instantiated it, and what earlier answers said
  about its attributes (multi-hot of attributes said yes, of attributes said no);
- for a relationship question, the geometry of the two labels' defining regions (the regions of the
  uniqueness questions that instantiated them): the offsets between their centres, left, right, top
  and bottom edges, the log ratio of their areas and the area of their intersection, since where the
  two objects were found is what a blind rule reads off a relationship question;
- the engine: p, log10 of the population, whether the full history was used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.core.drivers import StreamStep
from kernel.kinds import KINDS, kind_of
from kernel.questions import Answer, AttributeQuestion, InstantiationQuestion, Label, RelationshipQuestion
from kernel.vocabulary import Vocabulary

PAIR_GEOMETRY = (
    "centre_dx",
    "centre_dy",
    "left_dx",
    "right_dx",
    "top_dy",
    "bottom_dy",
    "log_area_ratio",
    "intersection",
    "has_geometry",
)


@dataclass(frozen=True)
class Rows:
    """Feature rows of answered steps, with their answers, the engine's p and the question kinds."""

    features: npt.NDArray[np.float64]
    answers: npt.NDArray[np.bool_]
    p: npt.NDArray[np.float64]
    kinds: list[str]

    def __len__(self) -> int:
        return len(self.answers)


class FeatureSpace:
    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        self.types = [t.name for t in vocabulary.types]
        self.attributes = [(t.name, a) for t in vocabulary.types for a in t.attributes]
        self.attribute_index = {key: i for i, key in enumerate(self.attributes)}
        self.relationships = [r.name for r in vocabulary.relationships]
        names: list[str] = [f"kind={k}" for k in KINDS]
        names += [f"type={t}" for t in self.types] + [f"object_type={t}" for t in self.types]
        names += ["n_attributes"] + [f"asks={t}:{a}" for t, a in self.attributes]
        names += [f"relationship={r}" for r in self.relationships]
        names += ["region_x0", "region_y0", "region_x1", "region_y1", "region_area", "has_region"]
        names += ["position", "proposals_so_far", "answered_so_far", "yes_so_far", "yes_fraction"]
        names += ["previous_answer", "previous_was_yes"] + [f"instantiated={t}" for t in self.types]
        names += [f"object_named={t}:{a}" for t, a in self.attributes]
        names += ["object_x0", "object_y0", "object_x1", "object_y1", "object_area"]
        names += [f"object_said_yes={t}:{a}" for t, a in self.attributes]
        names += [f"object_said_no={t}:{a}" for t, a in self.attributes]
        names += ["object_facts", "other_x0", "other_y0", "other_x1", "other_y1"]
        names += [f"pair_{name}" for name in PAIR_GEOMETRY]
        names += ["engine_p", "engine_log_population", "engine_log_finest_population"]
        self.names = names
        self.column = {name: i for i, name in enumerate(names)}

    def rows(self, streams: Sequence[Sequence[StreamStep]]) -> Rows:
        features: list[npt.NDArray[np.float64]] = []
        answers: list[bool] = []
        p: list[float] = []
        kinds: list[str] = []
        for steps in streams:
            for row, step in self._stream_rows(steps):
                features.append(row)
                answers.append(step.answer == Answer.YES)
                p.append(float(step.estimate.p) if step.estimate.p is not None else 0.5)
                kinds.append(str(step.question.kind))
        matrix = np.vstack(features) if features else np.zeros((0, len(self.names)))
        return Rows(matrix, np.array(answers, dtype=bool), np.array(p), kinds)

    def _stream_rows(self, steps: Sequence[StreamStep]) -> list[tuple[npt.NDArray[np.float64], StreamStep]]:
        out = []
        answered = yes = 0
        previous: Answer | None = None
        instantiated: dict[Label, InstantiationQuestion] = {}
        said: dict[Label, dict[str, bool]] = {}
        counts = dict.fromkeys(self.types, 0)
        for proposals, step in enumerate(steps):
            if step.answer != Answer.AMBIGUOUS:
                row = self._row(step, proposals, answered, yes, previous, counts, instantiated, said)
                out.append((row, step))
                answered += 1
                yes += step.answer == Answer.YES
                previous = step.answer
            question = step.question
            if step.label is not None and isinstance(question, InstantiationQuestion):
                instantiated[step.label] = question
                counts[step.label.type] += 1
            if isinstance(question, AttributeQuestion) and step.answer != Answer.AMBIGUOUS:
                told = kind_of(question).told_attributes(question, step.answer == Answer.YES)
                said.setdefault(question.label, {}).update(told)
        return out

    def _row(
        self,
        step: StreamStep,
        proposals: int,
        answered: int,
        yes: int,
        previous: Answer | None,
        counts: dict[str, int],
        instantiated: dict[Label, InstantiationQuestion],
        said: dict[Label, dict[str, bool]],
    ) -> npt.NDArray[np.float64]:
        x = np.zeros(len(self.names))
        c = self.column
        question = step.question
        x[c[f"kind={question.kind}"]] = 1
        about: Label | None = None
        other: Label | None = None
        if isinstance(question, InstantiationQuestion):
            type_name, named = question.type, question.attributes
            self._box(x, "region", self.vocabulary.region(question.region).box)
            x[c["has_region"]] = 1
        elif isinstance(question, AttributeQuestion):
            type_name, named, about = question.label.type, question.attributes, question.label
        else:
            assert isinstance(question, RelationshipQuestion)
            type_name, named, about, other = question.subject.type, (), question.subject, question.object
            x[c[f"object_type={question.object.type}"]] = 1
            x[c[f"relationship={question.relationship}"]] = 1
        x[c[f"type={type_name}"]] = 1
        x[c["n_attributes"]] = len(named)
        for a in named:
            x[c[f"asks={type_name}:{a}"]] = 1
        x[c["position"]], x[c["proposals_so_far"]] = answered, proposals
        x[c["answered_so_far"]], x[c["yes_so_far"]] = answered, yes
        x[c["yes_fraction"]] = yes / answered if answered else 0.5
        x[c["previous_answer"]] = previous is not None
        x[c["previous_was_yes"]] = previous == Answer.YES
        for t, n in counts.items():
            x[c[f"instantiated={t}"]] = n
        self._objects(x, about, other, instantiated, said)
        self._engine(x, step)
        return x

    def _objects(
        self,
        x: npt.NDArray[np.float64],
        about: Label | None,
        other: Label | None,
        instantiated: dict[Label, InstantiationQuestion],
        said: dict[Label, dict[str, bool]],
    ) -> None:
        """What the history says of the objects an attribute or relationship question is about: the
        question that instantiated each, what earlier answers said of its attributes, the two regions'
        geometry."""
        c = self.column
        if about is not None and about in instantiated:
            origin = instantiated[about]
            for a in origin.attributes:
                x[c[f"object_named={about.type}:{a}"]] = 1
            self._box(x, "object", self.vocabulary.region(origin.region).box)
            facts = said.get(about, {})
            x[c["object_facts"]] = len(facts)
            for a, value in facts.items():
                x[c[f"object_said_{'yes' if value else 'no'}={about.type}:{a}"]] = 1
        if other is not None and other in instantiated:
            x0, y0, x1, y1 = self.vocabulary.region(instantiated[other].region).box
            x[c["other_x0"]], x[c["other_y0"]], x[c["other_x1"]], x[c["other_y1"]] = x0, y0, x1, y1
            if about is not None and about in instantiated:
                subject_box = self.vocabulary.region(instantiated[about].region).box
                geometry = pair_geometry(subject_box, (x0, y0, x1, y1))
                for name, offset in zip(PAIR_GEOMETRY, geometry, strict=True):
                    x[c[f"pair_{name}"]] = offset

    def _engine(self, x: npt.NDArray[np.float64], step: StreamStep) -> None:
        """The engine's p and the populations behind it."""
        c = self.column
        estimate = step.estimate
        x[c["engine_p"]] = estimate.p if estimate.p is not None else 0.5
        x[c["engine_log_population"]] = math.log10(max(estimate.population, 1))
        finest = estimate.levels[-1][1] if estimate.levels else estimate.population
        x[c["engine_log_finest_population"]] = math.log10(max(finest, 1))

    def _box(self, x: npt.NDArray[np.float64], prefix: str, box: tuple[float, float, float, float]) -> None:
        c = self.column
        x0, y0, x1, y1 = box
        x[c[f"{prefix}_x0"]], x[c[f"{prefix}_y0"]], x[c[f"{prefix}_x1"]], x[c[f"{prefix}_y1"]] = (
            x0,
            y0,
            x1,
            y1,
        )
        x[c[f"{prefix}_area"]] = (x1 - x0) * (y1 - y0)


def pair_geometry(
    subject: tuple[float, float, float, float], obj: tuple[float, float, float, float]
) -> tuple[float, ...]:
    """The features of `PAIR_GEOMETRY` for two region boxes (x0, y0, x1, y1 in fractions of the image):
    subject minus object, so that "the subject was found lower than the object" is one sign."""
    sx0, sy0, sx1, sy1 = subject
    ox0, oy0, ox1, oy1 = obj
    subject_area, object_area = (sx1 - sx0) * (sy1 - sy0), (ox1 - ox0) * (oy1 - oy0)
    width = max(0.0, min(sx1, ox1) - max(sx0, ox0))
    height = max(0.0, min(sy1, oy1) - max(sy0, oy0))
    return (
        (sx0 + sx1) / 2 - (ox0 + ox1) / 2,
        (sy0 + sy1) / 2 - (oy0 + oy1) / 2,
        sx0 - ox0,
        sx1 - ox1,
        sy0 - oy0,
        sy1 - oy1,
        math.log(max(subject_area, 1e-9) / max(object_area, 1e-9)),
        width * height,
        1.0,
    )
