"""A session's scores, computed from its plan and its stored answers alone, so that a score can be
recomputed at any time and gives the same figures; and the paired comparison of two sessions.

- accuracy overall, per question kind and per position in the stream (0 = a stream's first question),
  each a proportion with its 95% Wilson interval (scoring.stats);
- the position of the first mistake per stream (1-based; a stream without a mistake counts as its
  length + 1, i.e. censored at its end), its mean over streams with a normal 95% interval;
- accuracy by reference distance on the questions that name a label (scoring.references), in bins,
  each with its Wilson interval;
- once a session is over, a question it never answered (the deadline passed) counts as wrong; while it
  runs, only the answered questions count.

`SCORING_VERSION` names this way of scoring. A stored score carries the version that made it; when the
version here changes, the evaluation app's beat recomputes the stored scores of older versions. Bump it
with every change that can change a stored figure.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

from scoring.kinds import KINDS
from scoring.references import REFERENCE_BINS, reference_bin, reference_distances
from scoring.stats import mcnemar_exact, mean_interval, proportion

SCORING_VERSION = 2  # 2: by_reference


class PlannedStep(Protocol):
    """What scoring reads of a question a session is asked."""

    @property
    def ordinal(self) -> int: ...  # its position among all the session's questions: 0, 1, 2, ...
    @property
    def step_pos(self) -> int: ...  # its position in its stream (shown steps only)
    @property
    def kind(self) -> str: ...
    @property
    def question(self) -> Mapping[str, Any]: ...  # its structured form, for the labels it names
    @property
    def label(self) -> str: ...  # the label a "yes" to it made, or ""


class PlannedStream(Protocol):
    @property
    def pos(self) -> int: ...
    @property
    def first_ordinal(self) -> int: ...
    @property
    def steps(self) -> int: ...


class Plan(Protocol):
    @property
    def streams(self) -> Sequence[PlannedStream]: ...
    @property
    def steps(self) -> Sequence[PlannedStep]: ...


Counted = list[tuple[PlannedStep, bool]]


def counted_streams(
    plan: Plan, answers: Mapping[int, bool], over: bool
) -> Iterator[tuple[PlannedStream, Counted]]:
    """Each stream with the questions that count and whether each was answered correctly: once the
    session is over every question counts (an unanswered one as wrong); while it runs, only the answered
    ones. `answers` maps a plan ordinal to whether the stored answer was correct."""
    for stream in plan.streams:
        steps = plan.steps[stream.first_ordinal : stream.first_ordinal + stream.steps]
        yield stream, [(s, answers.get(s.ordinal, False)) for s in steps if over or s.ordinal in answers]


def first_mistake(counted: Counted) -> int | None:
    """The 1-based position of the first question counted as wrong, or None."""
    return next((i + 1 for i, (_, ok) in enumerate(counted) if not ok), None)


def score_of(*, plan: Plan, answers: Mapping[int, bool], over: bool) -> dict[str, Any]:
    """The scores of a session (partial while it runs). `answers` maps a plan ordinal to whether the
    stored answer was correct."""
    right: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    positions: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    references: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    distances = reference_distances(plan)
    first_mistakes: list[int] = []
    for _, counted in counted_streams(plan, answers, over):
        if not counted:
            continue
        for step, ok in counted:
            for key in ("all", step.kind):
                right[key][0] += ok
                right[key][1] += 1
            positions[step.step_pos][0] += ok
            positions[step.step_pos][1] += 1
            if step.ordinal in distances:
                bin_ = references[reference_bin(distances[step.ordinal])]
                bin_[0] += ok
                bin_[1] += 1
        first_mistakes.append(first_mistake(counted) or len(counted) + 1)
    return {
        "accuracy": proportion(*right["all"]),
        "by_kind": {kind: proportion(*right[kind]) for kind in KINDS if right[kind][1]},
        "by_position": [proportion(*positions[i]) for i in sorted(positions)],
        "first_mistake": mean_interval(first_mistakes),
        "by_reference": [
            {"distance": name, **proportion(*references[name])}
            for _, _, name in REFERENCE_BINS
            if references[name][1]
        ],
        "answered": len(answers),
        "complete": over,
    }


def stream_scores(*, plan: Plan, answers: Mapping[int, bool]) -> list[dict[str, Any]]:
    """Stream by stream, for a session that is over: its questions, how many were answered and answered
    correctly, the accuracy (an unanswered question counts as wrong, as in `score_of`) and the position
    of the first mistake (None: none in the stream)."""
    rows = []
    for stream, counted in counted_streams(plan, answers, over=True):
        correct = sum(ok for _, ok in counted)
        rows.append(
            {
                "stream": stream.pos,
                "questions": len(counted),
                "answered": sum(1 for step, _ in counted if step.ordinal in answers),
                "correct": correct,
                "accuracy": proportion(correct, len(counted)),
                "first_mistake": first_mistake(counted),
            }
        )
    return rows


def compare(answers_a: Mapping[int, bool], answers_b: Mapping[int, bool]) -> dict[str, Any]:
    """A against B on the questions both answered, by McNemar's exact test: only the discordant pairs
    carry information. b = A right and B wrong, c = A wrong and B right."""
    both = answers_a.keys() & answers_b.keys()
    b = sum(1 for o in both if answers_a[o] and not answers_b[o])
    c = sum(1 for o in both if not answers_a[o] and answers_b[o])
    p = mcnemar_exact(b, c)
    return {"paired": len(both), "a_only_right": b, "b_only_right": c, "p_value": p, "significant": p < 0.05}
