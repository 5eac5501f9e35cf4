"""A session's scores, computed from its plan and its stored answers alone, so that a score can be
recomputed at any time and gives the same figures; and the paired comparison of two sessions.

- accuracy overall, per question kind and per position in the stream (0 = a stream's first question),
  each a proportion with its 95% Wilson interval (scoring.stats);
- the position of the first mistake per stream (1-based; a stream without a mistake counts as its
  length + 1, i.e. censored at its end), its mean over streams with a normal 95% interval;
- accuracy by reference distance on the questions that name a label (scoring.references), in bins,
  each with its Wilson interval;
- once a session is over, a question it never answered (the deadline passed) counts as wrong; while it
  runs, only the answered questions count;
- where the system gave its probability of yes, the proper scores of those probabilities
  (scoring.forecasts): the Brier score, the log loss and the calibration error.

`SCORING_VERSION` names this way of scoring. A stored score carries the version that made it; when the
version here changes, the evaluation app's beat recomputes the stored scores of older versions. Bump it
with every change that can change a stored figure.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kernel.kinds import KINDS
from scoring.forecasts import Forecast, brier, forecast_scores, paired_brier
from scoring.references import REFERENCE_BINS, reference_bin, reference_distances
from scoring.stats import mcnemar_exact, mean_interval, proportion, sign_test_exact

SCORING_VERSION = 3  # 2: by_reference; 3: forecasts


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


def score_of(
    *,
    plan: Plan,
    answers: Mapping[int, bool],
    over: bool,
    forecasts: Mapping[int, tuple[float, bool]] | None = None,
) -> dict[str, Any]:
    """The scores of a session (partial while it runs). `answers` maps a plan ordinal to whether the
    stored answer was correct; `forecasts` an ordinal to the p_yes given with the answer and whether
    the truth is yes."""
    forecasts = forecasts or {}
    given: list[Forecast] = []
    questions = 0
    right: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    positions: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    references: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    distances = reference_distances(plan)
    first_mistakes: list[int] = []
    for stream, counted in counted_streams(plan, answers, over):
        if not counted:
            continue
        questions += len(counted)
        given.extend((stream.pos, *forecasts[s.ordinal]) for s, _ in counted if s.ordinal in forecasts)
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
        "forecasts": forecast_scores(given, questions),
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


class DealtStep(Protocol):
    @property
    def ordinal(self) -> int: ...
    @property
    def step_id(self) -> int: ...  # the question's identity: the same step in two sessions is one question
    @property
    def stream_pos(self) -> int: ...


class DealtStream(Protocol):
    @property
    def test_image_id(self) -> int: ...


class DealtPlan(Protocol):
    @property
    def streams(self) -> Sequence[DealtStream]: ...
    @property
    def steps(self) -> Sequence[DealtStep]: ...


@dataclass(frozen=True)
class Tally:
    """What a comparison reads of a session that is over: every question it was asked (by step) with
    whether it was answered (and rightly), and per image its right answers among its questions (an
    unanswered question counts as wrong, as in `score_of`)."""

    asked: frozenset[int]
    answered: Mapping[int, bool]  # step id -> correct, the answered questions only
    images: Mapping[int, tuple[int, int]]  # test image -> (right, questions)
    # test image -> (sum of Brier scores, answers with a p), the images with a p given only
    brier_images: Mapping[int, tuple[float, int]] = field(default_factory=dict)


def tally_of(
    plan: DealtPlan, answers: Mapping[int, bool], forecasts: Mapping[int, tuple[float, bool]] | None = None
) -> Tally:
    """`answers` maps a plan ordinal to whether the stored answer was correct, `forecasts` to the p_yes
    given and whether the truth is yes."""
    images: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    briers: dict[int, list[float]] = defaultdict(lambda: [0.0, 0])
    answered = {}
    for step in plan.steps:
        image = plan.streams[step.stream_pos].test_image_id
        ok = answers.get(step.ordinal)
        if ok is not None:
            answered[step.step_id] = ok
        images[image][0] += bool(ok)
        images[image][1] += 1
        if forecasts and step.ordinal in forecasts:
            briers[image][0] += brier(*forecasts[step.ordinal])
            briers[image][1] += 1
    return Tally(
        asked=frozenset(step.step_id for step in plan.steps),
        answered=answered,
        images={image: (right, total) for image, (right, total) in images.items()},
        brier_images={image: (total, int(n)) for image, (total, n) in briers.items()},
    )


def compare_sessions(a: Tally, b: Tally) -> dict[str, Any]:
    """A against B. Where both were asked exactly the same questions, McNemar's exact test on the
    questions both answered (`compare`). Where they were dealt different streams a question of one is
    not a question of the other, so they are paired by image: per image each session's accuracy on its
    own stream, and the exact sign test on the images where the two differ (ties left out). Where both
    gave probabilities, `brier`: A's Brier score minus B's, paired by image (scoring.forecasts)."""
    brier_ = paired_brier(a.brier_images, b.brier_images) if a.brier_images and b.brier_images else None
    if a.asked == b.asked:
        return {"test": "mcnemar", "unit": "questions", **compare(a.answered, b.answered), "brier": brier_}
    both = a.images.keys() & b.images.keys()
    plus = minus = 0
    for image in both:
        (right_a, total_a), (right_b, total_b) = a.images[image], b.images[image]
        # right_a / total_a against right_b / total_b, in integers (no rounding can call a tie).
        difference = right_a * total_b - right_b * total_a
        plus += difference > 0
        minus += difference < 0
    p = sign_test_exact(plus, minus)
    return {
        "test": "sign",
        "unit": "images",
        "paired": len(both),
        "a_only_right": plus,
        "b_only_right": minus,
        "p_value": p,
        "significant": p < 0.05,
        "brier": brier_,
    }


def positions_binned(by_position: Sequence[Mapping[str, Any]], minimum: int) -> list[dict[str, Any]]:
    """Accuracy by position (`score_of`'s `by_position`) pooled into bins that say nothing about one
    image: a bin starts only at a position that at least `minimum` streams reach, once the bin before
    holds at least `minimum` answers; the other positions join the bin before them (one bin when the
    first position is reached by fewer streams). Each position is given its bin's proportion, with the
    bin's `first` and `last` position, so a plot by position draws steps."""
    bins: list[list[int]] = []  # [first, last, successes, trials]
    for position, entry in enumerate(by_position):
        successes, trials = int(entry["successes"]), int(entry["trials"])
        if not bins or (trials >= minimum and bins[-1][3] >= minimum):
            bins.append([position, position, successes, trials])
        else:
            bins[-1][1] = position
            bins[-1][2] += successes
            bins[-1][3] += trials
    shown: list[dict[str, Any]] = []
    for first, last, successes, trials in bins:
        pooled = {**proportion(successes, trials), "first": first, "last": last}
        shown.extend(dict(pooled) for _ in range(first, last + 1))
    return shown


def positions_unbinned(by_position: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each position its own bin (a test that can no longer be taken)."""
    return [{**entry, "first": i, "last": i} for i, entry in enumerate(by_position)]
