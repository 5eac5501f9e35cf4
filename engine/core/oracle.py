"""The oracle (docs/method.md section 5): answers a question on a completely annotated scene, given the history.

Replaying the history binds each label to the annotated object its uniqueness question singled out;
existence and uniqueness questions then exclude the bound objects ("not previously instantiated").
Answers are yes, no or ambiguous: an attribute question about an object whose attributes are unknown
is ambiguous, and so is an instantiation question whose answer depends on such an object.

The same rules, vectorised over the whole training set, are in `engine.core.training`; the tests check
the two against each other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from engine.core.errors import CoreErrorCode, HistoryError
from engine.core.questions import (
    Answer,
    AttributeQuestion,
    InstantiationQuestion,
    Kind,
    Label,
    Question,
    RelationshipQuestion,
)
from engine.core.scene import Scene
from engine.core.visibility import visibility_masks
from engine.core.vocabulary import Vocabulary


@dataclass(frozen=True)
class PreparedScene:
    """A scene with its objects' attribute masks and region visibility precomputed."""

    scene: Scene
    vocabulary: Vocabulary
    attribute_masks: tuple[int, ...]
    visibility: tuple[int, ...]

    @classmethod
    def build(cls, scene: Scene, vocabulary: Vocabulary, min_overlap: float = 0.0) -> PreparedScene:
        masks = tuple(vocabulary.object_type(o.type).mask_of(o.attributes) for o in scene.objects)
        boxes = np.array([o.bbox for o in scene.objects], dtype=np.float64).reshape(-1, 4)
        n = len(scene.objects)
        visible = visibility_masks(
            boxes,
            np.full(n, float(scene.width)),
            np.full(n, float(scene.height)),
            vocabulary.regions,
            min_overlap,
        )
        return cls(scene, vocabulary, masks, tuple(int(v) for v in visible))


@dataclass
class Binding:
    """Which annotated object each label refers to, in one scene."""

    objects: dict[Label, int] = field(default_factory=dict)

    def bind(self, label: Label, index: int) -> None:
        self.objects[label] = index

    def object_of(self, label: Label) -> int:
        try:
            return self.objects[label]
        except KeyError:
            raise HistoryError(
                f"{label} has not been instantiated", code=CoreErrorCode.LABEL_NOT_INSTANTIATED
            ) from None


def answer(prepared: PreparedScene, binding: Binding, question: Question) -> tuple[Answer, int | None]:
    """The answer, and for a positive uniqueness question the index of the object it singles out."""
    if isinstance(question, InstantiationQuestion):
        return _answer_instantiation(prepared, binding, question)
    if isinstance(question, AttributeQuestion):
        return _answer_attribute(prepared, binding, question), None
    return _answer_relationship(prepared, binding, question), None


def _answer_instantiation(
    prepared: PreparedScene, binding: Binding, question: InstantiationQuestion
) -> tuple[Answer, int | None]:
    vocabulary = prepared.vocabulary
    wanted = vocabulary.object_type(question.type).mask_of(question.attributes)
    region_bit = 1 << vocabulary.region_index[question.region]
    bound = set(binding.objects.values())
    matches: list[int] = []
    unknown = 0
    for index, obj in enumerate(prepared.scene.objects):
        if obj.type != question.type or index in bound or not prepared.visibility[index] & region_bit:
            continue
        if not wanted:
            matches.append(index)
        elif not obj.attributes_known:
            unknown += 1
        elif prepared.attribute_masks[index] & wanted == wanted:
            matches.append(index)
    return instantiation_answer(question.kind, len(matches), unknown), (
        matches[0] if question.kind == Kind.UNIQUE and len(matches) == 1 and unknown == 0 else None
    )


def instantiation_answer(kind: Kind, matches: int, unknown: int) -> Answer:
    """From the number of matching objects and of objects that might match (attributes unknown)."""
    if kind == Kind.EXIST:
        if matches >= 1:
            return Answer.YES
        return Answer.AMBIGUOUS if unknown else Answer.NO
    if matches >= 2:
        return Answer.NO
    if unknown:
        return Answer.AMBIGUOUS
    return Answer.YES if matches == 1 else Answer.NO


def _answer_attribute(prepared: PreparedScene, binding: Binding, question: AttributeQuestion) -> Answer:
    index = binding.object_of(question.label)
    if not prepared.scene.objects[index].attributes_known:
        return Answer.AMBIGUOUS
    object_type = prepared.vocabulary.object_type(question.label.type)
    has = [bool(prepared.attribute_masks[index] >> object_type.bit_of[a] & 1) for a in question.attributes]
    result = any(has) if question.kind == Kind.ATTR_OR else all(has)
    return Answer.YES if result else Answer.NO


def _answer_relationship(prepared: PreparedScene, binding: Binding, question: RelationshipQuestion) -> Answer:
    subject, obj = binding.object_of(question.subject), binding.object_of(question.object)
    symmetric = prepared.vocabulary.relationship(question.relationship).symmetric
    return Answer.YES if prepared.scene.related(subject, question.relationship, obj, symmetric) else Answer.NO


def replay(prepared: PreparedScene, history: Iterable[tuple[Question, Answer]]) -> tuple[bool, Binding]:
    """Whether the scene gives every recorded (non-rejected) answer, and the binding it ends with.

    Rejected (ambiguous) entries are skipped: they condition nothing. Replay stops at the first
    disagreement, because after it the labels of the history no longer mean anything on this scene.
    """
    binding = Binding()
    counters: dict[str, int] = {}
    for question, recorded in history:
        if recorded == Answer.AMBIGUOUS:
            continue
        given, instantiated = answer(prepared, binding, question)
        if given != recorded:
            return False, binding
        if instantiated is not None and recorded == Answer.YES:
            assert isinstance(question, InstantiationQuestion)
            counters[question.type] = counters.get(question.type, 0) + 1
            binding.bind(Label(question.type, counters[question.type]), instantiated)
    return True, binding
