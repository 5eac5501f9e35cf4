"""The simulated systems of the ranking check (`scoring.degradation`): systems that see worse and worse.

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

Pure Python, no Django.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from kernel.kinds import REGISTRY, Family
from scoring.references import labels_named
from scoring.scores import PlannedStep, PlannedStream
from scoring.stats import mean_interval, proportion

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
