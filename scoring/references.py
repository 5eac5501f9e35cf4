"""Reference distance: for a question about a label, how many steps back the label was made.

CLEVR-Dialog's coreference analysis in this test's terms (docs/evaluation.md, "Scores"). A label is
made by a "yes" to a uniqueness question ("person 2"); an attribute question names one label and a
relationship question two. Its distance is its position in the stream minus the position of the step
that made the label, in shown steps; for a relationship, the farther of its two labels, the one a system
must have kept longest. Instantiation questions name no label and have no distance.

Distances are grouped in bins that widen with the distance, because long references are rare: the
bins keep each a count that an interval can say something about.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

# (lowest, highest or None for no bound, name), in order.
REFERENCE_BINS: tuple[tuple[int, int | None, str], ...] = (
    (1, 1, "1"),
    (2, 2, "2"),
    (3, 3, "3"),
    (4, 5, "4-5"),
    (6, 9, "6-9"),
    (10, 19, "10-19"),
    (20, None, "20+"),
)


class LabelledStep(Protocol):
    """What the reference distance reads of a question."""

    @property
    def ordinal(self) -> int: ...
    @property
    def step_pos(self) -> int: ...
    @property
    def question(self) -> Mapping[str, Any]: ...  # its structured form (docs/method.md section 9)
    @property
    def label(self) -> str: ...  # the label a "yes" to it made, or ""


class LabelledStream(Protocol):
    @property
    def first_ordinal(self) -> int: ...
    @property
    def steps(self) -> int: ...


class LabelledPlan(Protocol):
    @property
    def streams(self) -> Sequence[LabelledStream]: ...
    @property
    def steps(self) -> Sequence[LabelledStep]: ...


def labels_named(question: Mapping[str, Any]) -> tuple[str, ...]:
    """The labels a question names: one for an attribute question, two for a relationship, none for an
    instantiation question."""
    if "label" in question:
        return (question["label"],)
    if "subject" in question:
        return (question["subject"], question["object"])
    return ()


def reference_distances(plan: LabelledPlan) -> dict[int, int]:
    """{ordinal: distance} of every question of the plan that names a label. A label is always made
    before it is named (the engine's story line), so a name without its making is a broken plan and is
    left without a distance rather than guessed."""
    distances: dict[int, int] = {}
    for stream in plan.streams:
        made: dict[str, int] = {}
        for step in plan.steps[stream.first_ordinal : stream.first_ordinal + stream.steps]:
            named = labels_named(step.question)
            if named and all(label in made for label in named):
                distances[step.ordinal] = step.step_pos - min(made[label] for label in named)
            if step.label:
                made[step.label] = step.step_pos
    return distances


def reference_bin(distance: int) -> str:
    """The name of the bin a distance falls in."""
    for low, high, name in REFERENCE_BINS:
        if distance >= low and (high is None or distance <= high):
            return name
    raise ValueError(f"a reference distance is at least 1, not {distance}")
