"""Does the test rank vision? Simulated systems that see worse and worse, scored like real ones.

A simulated system is the oracle looking at a degraded scene, with the blind prior (the engine's p from
the history and the training statistics) to fall back on. Three kinds of degradation, each with one
parameter:

- **objects** (x): each object is missed with probability x, once for the whole stream (the object a
  uniqueness question labels stays missed for every later question about the label). An instantiation
  question whose object is missed, or that has no object, shows nothing; an attribute or relationship
  question about a missed label shows nothing;
- **attributes** (q): the attribute fact an attribute question asks about is read flipped with
  probability q (for `attr_and` and `attr_or` the compound fact: the plan holds the truth of the
  question, not of its two attributes);
- **relationships** (r): the relationship fact is read flipped with probability r.

The system knows how degraded it is and answers by Bayes' rule from the blind prior p and what it saw:
yes when p P(seen | yes) > (1 - p) P(seen | no). Seeing nothing in a region is x times as likely when
something is there as when nothing is; a fact read with flip probability q is (1 - q) / q times as
likely to be true as false. So at no degradation it is the oracle (accuracy 1.0), and at full
degradation (x = 1, q = r = 1/2) what it sees carries no information and it *is* the blind prior:
each curve ends exactly at the blind prior's accuracy on the questions the degradation reaches
(every question for objects, the attribute questions for q, the relationship questions for r). Without
the fallback, an oracle that sees nothing would answer "no" everywhere and end at the share of "no"
answers, which is not a property of seeing. The decision record is docs/decisions/0048-ranking-check.md.

The curves are the *expected* accuracy of such a system (`expected_correct`): for each question, the
probability over the degradation's draw that the system answers it right, summed over the questions a
kind of degradation reaches, with the Wilson interval one session of that accuracy would get. A
sampled session (`simulated_answers`: one draw per question, or per object, from a generator seeded by
(seed, kind, stream, ordinal), the same draws at every level) is scored by `scoring.scores.score_of`
as a real session is, and the average of many such sessions is the expected curve (a test checks it);
but one session's sampling noise (about 0.02 on a few hundred questions) is as large as the last steps
of a curve, and would make the curve step up and down at random. With a calibrated p the expected curve
falls monotonically on average over the answers (a flipped reading is a garbled one, and Bayes' rule
with the right prior loses accuracy under garbling); on one test's answers it steps up wherever the
blind prior is right more often than p says, by miscalibration or by luck, and a right p is that lucky
on a few hundred questions often enough. So where a curve steps up the report says how often a right p's
would on the same questions (`monotone_chance`). The power figure compares two sampled sessions, since it needs their per-stream
differences. Pure Python, no Django.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kernel.kinds import REGISTRY, Family
from scoring.references import labels_named
from scoring.scores import PlannedStep, PlannedStream, score_of
from scoring.stats import mean_interval, proportion

DEGRADATION_VERSION = 5  # bump with every change that can change a figure of the report
LEVELS = tuple(i / 10 for i in range(11))  # the share of the information destroyed, 0 to 1
FINE_LEVELS = tuple(i / 100 for i in range(101))  # for the power figure
# kind of degradation -> (its parameter, the parameter at level d, the degradation a kind's module names
# for the kinds it reaches: None for every kind)
FAMILIES: dict[str, tuple[str, float, str | None]] = {
    "objects": ("x", 1.0, None),
    "attributes": ("q", 0.5, "attributes"),
    "relationships": ("r", 0.5, "relationships"),
}


def reaches(family: str, kind: str) -> bool:
    """Whether a kind of degradation reaches the questions of a kind (`QuestionKind.degradation`)."""
    named = FAMILIES[family][2]
    return named is None or (kind in REGISTRY and REGISTRY[kind].degradation == named)


def shows_its_object(kind: str) -> bool:
    """Whether a question of this kind looks for an object (instantiation): missed, it shows nothing.
    Every other kind is about objects found before, by such a question."""
    return kind in REGISTRY and REGISTRY[kind].family == Family.INSTANTIATION


DIFFERENCE, POWER, ALPHA = 0.05, 0.8, 0.05
# Pairs of simulated systems the power figure is the median over (odd: the median is one of them).
POWER_DRAWS = 21
# Redraws of the truths for the chance that a right p falls at every step (standard error under 0.016).
MONOTONE_DRAWS = 1000
# Issue 34's second ruling: a step up ranks vision still when a right p shows it at least this often.
STEP_UP_CHANCE = 0.05
# Float sums of the same terms in another order differ in the last bits: not a step.
STEP_TOLERANCE = 1e-12


class SimStep(PlannedStep, Protocol):
    """What the simulation reads of a question beyond what scoring reads (truthing.published.PlanStep
    has all of it)."""

    @property
    def stream_pos(self) -> int: ...
    @property
    def answer(self) -> str: ...  # the truth: "yes" or "no"
    @property
    def p(self) -> float | None: ...


class SimPlan(Protocol):
    @property
    def streams(self) -> Sequence[PlannedStream]: ...
    @property
    def steps(self) -> Sequence[SimStep]: ...


def blind_answer(p: float | None) -> bool:
    """The blind prior: yes exactly when the engine's p is above one half (no p: no)."""
    return p is not None and p > 0.5


def bayes_answer(p: float | None, likely_yes: float, likely_no: float) -> bool:
    """Yes when the posterior of yes, from the prior p and the likelihoods of what was seen under yes
    and under no, is above one half. Equal likelihoods leave the blind prior."""
    prior = 0.5 if p is None else p
    return prior * likely_yes > (1 - prior) * likely_no


def draws(plan: SimPlan, family: str, seed: int) -> dict[int, float]:
    """One uniform draw per question for a kind of degradation (per object for `objects`: a question
    about a label reads the draw of the uniqueness question that made it)."""
    out: dict[int, float] = {}
    for stream in plan.streams:
        made: dict[str, float] = {}
        for step in plan.steps[stream.first_ordinal : stream.first_ordinal + stream.steps]:
            u = random.Random(f"{seed}:{family}:{stream.pos}:{step.ordinal}").random()
            named = labels_named(step.question)
            if family == "objects" and named:
                u = min(made.get(label, 1.0) for label in named)  # the first missed object decides
            if step.label:
                made[step.label] = u
            out[step.ordinal] = u
    return out


def degraded_answer(step: SimStep, family: str, level: float, u: float) -> bool:
    """The simulated system's answer (True: yes) to one question at one level of one degradation."""
    truth = step.answer == "yes"
    parameter = level * FAMILIES[family][1]
    if family == "objects":
        seen = u >= parameter
        if shows_its_object(step.kind):
            if truth and seen:
                return True
            # Nothing seen: x times as likely when something is there as when nothing is.
            return bayes_answer(step.p, parameter, 1.0)
        return truth if seen else blind_answer(step.p)
    if not reaches(family, step.kind):
        return truth
    if parameter == 0:
        return truth  # a perfect reading decides whatever the prior (even a p of exactly 0 or 1)
    read = truth != (u < parameter)  # the fact, read flipped with probability `parameter`
    right, wrong = 1.0 - parameter, parameter
    return bayes_answer(step.p, right if read else wrong, wrong if read else right)


def expected_correct(step: SimStep, family: str, level: float, objects_named: int) -> float:
    """The probability over the degradation's draw that `degraded_answer` is right on one question
    (`objects_named`: how many of the stream's objects the question is about, each missed on its own):
    its answer with a draw that spoils nothing (u = 1) and with one that spoils what it reads (u = 0),
    weighted by how likely each is."""
    parameter = level * FAMILIES[family][1]
    if family == "objects" and not shows_its_object(step.kind):
        spoiled = 1.0 - (1.0 - parameter) ** objects_named  # seen only if none of its objects is missed
    else:
        spoiled = parameter  # its own object missed, or its fact read flipped
    truth = step.answer == "yes"
    clear = degraded_answer(step, family, level, 1.0) == truth
    spoilt = degraded_answer(step, family, level, 0.0) == truth
    return (1.0 - spoiled) * float(clear) + spoiled * float(spoilt)


def objects_named(plan: SimPlan) -> dict[int, int]:
    """{ordinal: how many objects made earlier in its stream a question is about}, as `draws` reads
    them (a label its stream never made is never missed)."""
    out: dict[int, int] = {}
    for stream in plan.streams:
        made: set[str] = set()
        for step in plan.steps[stream.first_ordinal : stream.first_ordinal + stream.steps]:
            out[step.ordinal] = len(set(labels_named(step.question)) & made)
            if step.label:
                made.add(step.label)
    return out


def expected_accuracy(plan: SimPlan, family: str, level: float, named: Mapping[int, int]) -> dict[str, Any]:
    """The expected accuracy on the questions a kind of degradation reaches, with the Wilson interval
    of one session that accurate on that many questions."""
    reached_steps = [step for step in plan.steps if reaches(family, step.kind)]
    right = math.fsum(expected_correct(step, family, level, named[step.ordinal]) for step in reached_steps)
    return proportion(right, len(reached_steps))


def simulated_answers(plan: SimPlan, family: str, level: float, u: Mapping[int, float]) -> dict[int, bool]:
    """{ordinal: correct} of a simulated session, the shape `score_of` takes."""
    return {
        step.ordinal: degraded_answer(step, family, level, u[step.ordinal]) == (step.answer == "yes")
        for step in plan.steps
    }


def blind_answers(plan: SimPlan) -> dict[int, bool]:
    """{ordinal: correct} of the blind prior."""
    return {step.ordinal: blind_answer(step.p) == (step.answer == "yes") for step in plan.steps}


def seeing_minus_blind(plan: SimPlan, answers: Mapping[int, bool]) -> dict[str, float | int | None]:
    """A session's accuracy minus the blind prior's, paired question by question over the whole plan
    (an unanswered question counts as wrong, as in a score once the session is over), with the normal
    95% interval of the mean difference."""
    blind = blind_answers(plan)
    mean = mean_interval([int(answers.get(o, False)) - int(right) for o, right in blind.items()])
    return {"value": mean["mean"], "low": mean["low"], "high": mean["high"], "questions": mean["streams"]}


def reached(score: Mapping[str, Any], family: str) -> dict[str, Any]:
    """A score's accuracy on the questions a kind of degradation reaches, from its counts by kind."""
    if FAMILIES[family][2] is None:
        return dict(score["accuracy"])
    by_kind = score["by_kind"]
    kinds = [kind for kind in by_kind if reaches(family, kind)]
    return proportion(
        sum(by_kind[k]["successes"] for k in kinds if k in by_kind),
        sum(by_kind[k]["trials"] for k in kinds if k in by_kind),
    )


def degradation_curves(plan: SimPlan) -> dict[str, Any]:
    """For each kind of degradation: the expected accuracy at each level (with the interval of one
    session that accurate) on the questions it reaches, and the blind prior's on the same questions
    (as `score_of` scores its session)."""
    blind = score_of(plan=plan, answers=blind_answers(plan), over=True)
    named = objects_named(plan)
    families = {}
    for family, (parameter, scale, _) in FAMILIES.items():
        points = []
        for level in LEVELS:
            points.append(
                {"level": level, parameter: level * scale, **expected_accuracy(plan, family, level, named)}
            )
        families[family] = {
            "parameter": parameter,
            "questions": points[0]["trials"],
            "points": points,
            "blind_prior": reached(blind, family),
            "monotone": falls_at_every_step([point["value"] for point in points]),
        }
        # Where a curve steps up, whether that is more than a right p's luck on this many questions.
        chances = None if families[family]["monotone"] else right_p_curve_chances(plan, family, named)
        families[family]["monotone_chance"] = None if chances is None else chances.falls
        families[family]["step_up_chances"] = None if chances is None else chances.step_up
        families[family]["verdict"] = curve_verdict(
            [point["value"] for point in points],
            families[family]["blind_prior"],
            None if chances is None else chances.step_up,
        )
    return {
        "blind_prior": blind["accuracy"],
        "families": families,
        "ranks_vision": all(f["verdict"]["ranks"] for f in families.values()),
    }


def steps_up(values: Sequence[float | None]) -> list[bool]:
    """For each step between two levels, whether the curve goes up there."""
    return [a is not None and b is not None and b > a + STEP_TOLERANCE for a, b in itertools.pairwise(values)]


def falls_at_every_step(values: Sequence[float | None]) -> bool:
    return not any(steps_up(values))


def curve_verdict(
    values: Sequence[float | None],
    blind_prior: Mapping[str, Any],
    step_up_chances: Sequence[float | None] | None,
) -> dict[str, Any]:
    """Issue 34's second ruling. A curve ranks vision when it starts at 1.0 (the oracle), ends inside the
    blind prior's interval on its questions, and every step up is one that an exactly right p shows at
    least STEP_UP_CHANCE of the time on these questions (`step_up_chances[i]`: how often a right p's
    curve goes up from level i to i + 1). `wording` is what the card and the reports print."""
    start, end = values[0], values[-1]
    if start is None or abs(start - 1.0) > 1e-9:
        return {"ranks": False, "wording": f"does not rank vision: it starts at {_figure(start)}, not 1.0"}
    low, high = blind_prior.get("low"), blind_prior.get("high")
    if end is None or low is None or high is None or not low - 1e-9 <= end <= high + 1e-9:
        return {
            "ranks": False,
            "wording": f"does not rank vision: it ends at {_figure(end)}, outside the blind prior's "
            f"interval [{_figure(low)}, {_figure(high)}]",
        }
    ups = [i for i, up in enumerate(steps_up(values)) if up]
    if not ups:
        return {"ranks": True, "wording": "falls at every step"}
    chances = [None if step_up_chances is None else step_up_chances[i] for i in ups]
    unexplained = [c for c in chances if c is None or c < STEP_UP_CHANCE]
    if unexplained:
        worst = min((c for c in unexplained if c is not None), default=None)
        return {
            "ranks": False,
            "wording": "does not rank vision: a step up that chance explains only "
            f"p = {_figure(worst, 3)} of the time",
        }
    said = ", ".join(_figure(c, 2) for c in chances)
    count = "one step up" if len(ups) == 1 else f"{len(ups)} steps up"
    return {"ranks": True, "wording": f"falls, {count} within chance (p = {said})"}


def _figure(value: float | None, places: int = 3) -> str:
    return "nothing" if value is None else f"{value:.{places}f}"


@dataclass(frozen=True)
class _Redrawn:
    """A question of the plan with another truth (a SimStep)."""

    ordinal: int
    step_pos: int
    stream_pos: int
    kind: str
    question: Mapping[str, Any]
    label: str
    answer: str
    p: float | None


def _with_truth(step: SimStep, answer: str) -> _Redrawn:
    return _Redrawn(
        step.ordinal, step.step_pos, step.stream_pos, step.kind, step.question, step.label, answer, step.p
    )


@dataclass(frozen=True)
class RightPChances:
    """How a kind of degradation's curve behaves on this test's questions if every p were exactly right."""

    falls: float  # the chance that it falls at every step
    step_up: list[float]  # per step between two levels, the chance that it goes up there


def right_p_curve_chances(
    plan: SimPlan, family: str, named: Mapping[int, int], *, draws: int = MONOTONE_DRAWS
) -> RightPChances:
    """The chance that a kind of degradation's curve falls at every step on this test's questions if
    every p were exactly right, and per step the chance that it goes up there: each question it reaches
    keeps its place, and its truth is drawn yes with probability p (no p: one half), MONOTONE_DRAWS times
    from a fixed seed. A curve steps up where the blind prior is right more often than p says; a right
    p is too, by luck, on a few hundred questions. A step up that a right p shows often is the test's
    size; one it almost never shows is p's fault (issue 34's second ruling reads it at STEP_UP_CHANCE).
    The questions a truth would have changed later in its stream are not redrawn: this asks about
    the answers to these questions, as the engine-p guesser does."""
    steps = [step for step in plan.steps if reaches(family, step.kind)]
    # Per question and level, its expected correctness if its truth is no and if it is yes.
    table = [
        [
            tuple(
                expected_correct(_with_truth(step, a), family, level, named[step.ordinal])
                for a in ("no", "yes")
            )
            for level in LEVELS
        ]
        for step in steps
    ]
    rng = random.Random(f"monotone:{family}")
    falls, ups = 0, [0] * (len(LEVELS) - 1)
    for _ in range(draws):
        truths = [int(rng.random() < (0.5 if step.p is None else step.p)) for step in steps]
        curve = [
            math.fsum(row[i][t] for row, t in zip(table, truths, strict=True)) for i in range(len(LEVELS))
        ]
        went_up = steps_up(curve)
        falls += not any(went_up)
        ups = [n + up for n, up in zip(ups, went_up, strict=True)]
    return RightPChances(falls / draws, [n / draws for n in ups])


def stream_correct(plan: SimPlan, answers: Mapping[int, bool]) -> list[int]:
    """How many questions of each stream were answered right."""
    return [
        sum(answers[o] for o in range(stream.first_ordinal, stream.first_ordinal + stream.steps))
        for stream in plan.streams
    ]


def streams_needed(
    differences: Sequence[float], *, difference: float, questions_per_stream: float
) -> int | None:
    """How many streams a paired comparison of two systems needs to find a true difference in accuracy
    of `difference` with probability POWER at two-sided level ALPHA, given the per-stream differences in
    correct answers of two such systems on this test (their spread carries the test's stream lengths
    and the correlation of questions within a stream). Normal approximation to the paired test of the
    per-stream differences: n = ((z_{1-alpha/2} + z_power) sd / (difference x questions per stream))^2."""
    if len(differences) < 2 or questions_per_stream <= 0:
        return None
    normal = statistics.NormalDist()
    z = normal.inv_cdf(1 - ALPHA / 2) + normal.inv_cdf(POWER)
    sd = statistics.stdev(differences)
    return max(2, math.ceil((z * sd / (difference * questions_per_stream)) ** 2))


def power_figure(plan: SimPlan, *, seed: int, family: str = "objects") -> dict[str, Any] | None:
    """Streams needed to tell apart two systems whose true accuracies differ by DIFFERENCE, from pairs of
    simulated systems of this test around the middle of its range (between the blind prior and 1.0),
    each system drawn independently (two systems do not make the same mistakes).

    One pair's figure rests on the spread of that pair's per-stream differences, which moves with the
    draw of the two systems (on the demo test, from 25 to 68 streams over 30 pairs): the figure is the
    median over POWER_DRAWS pairs, with their range."""
    if not plan.streams or not plan.steps:
        return None
    blind = sum(blind_answers(plan).values()) / len(plan.steps)
    middle = (1.0 + blind) / 2
    pairs = [_power_pair(plan, family, middle, seed + 2 * draw) for draw in range(POWER_DRAWS)]
    figured = sorted(
        (pair for pair in pairs if pair["streams"] is not None), key=lambda pair: pair["streams"]
    )
    median = figured[(len(figured) - 1) // 2] if figured else pairs[0]
    return {
        "streams": median["streams"],
        "range": [figured[0]["streams"], figured[-1]["streams"]] if figured else None,
        "draws": len(figured),
        "difference": DIFFERENCE,
        "power": POWER,
        "alpha": ALPHA,
        "questions_per_stream": len(plan.steps) / len(plan.streams),
        "test_streams": len(plan.streams),
        "accuracies": median["accuracies"],
        "degradation": family,
    }


def _power_pair(plan: SimPlan, family: str, middle: float, seed: int) -> dict[str, Any]:
    """One pair of simulated systems, DIFFERENCE apart around `middle`: their accuracies, and the streams
    their per-stream differences say are needed (None when the test cannot hold two systems about
    DIFFERENCE apart)."""
    runs = []
    for target, replicate in ((middle + DIFFERENCE / 2, 0), (middle - DIFFERENCE / 2, 1)):
        u = draws(plan, family, seed + replicate)
        candidates = [simulated_answers(plan, family, level, u) for level in FINE_LEVELS]
        runs.append(min(candidates, key=lambda answers: abs(sum(answers.values()) / len(answers) - target)))
    better, worse = (stream_correct(plan, answers) for answers in runs)
    accuracies = [sum(answers.values()) / len(answers) for answers in runs]
    needed = None
    if abs(accuracies[0] - accuracies[1] - DIFFERENCE) <= DIFFERENCE / 2:
        needed = streams_needed(
            [a - b for a, b in zip(better, worse, strict=True)],
            difference=DIFFERENCE,
            questions_per_stream=len(plan.steps) / len(plan.streams),
        )
    return {"streams": needed, "accuracies": accuracies}


def ranking_report(plan: SimPlan, *, seed: int) -> dict[str, Any]:
    """The whole report a test's card shows: the curves and the power figure."""
    return {
        **degradation_curves(plan),
        "power": power_figure(plan, seed=seed),
        "levels": list(LEVELS),
        "version": DEGRADATION_VERSION,
    }
