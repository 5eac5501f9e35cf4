"""What the defining histories are worth to the weighted found level, read off cross-fitted training
streams (issue 19, decision 0057).

    python -m benchmarks.found_where_found [--vocabulary street|parking|marina] [--streams 300] [--write]

The streams are those the audit learns from (`engine.audit.run.training_streams`: each on a training
scene, with statistics fitted on the other folds), so no held-out scene is read. For every attribute
and relationship question they asked, p as the engine reported it (its weighted found level over the
images that give the pooled histories of the questions that defined the labels) and p with that level
over every image of B instead (decision 0057's "before"), worked out by replaying the history on each
training image of the stream's folds with the scalar oracle (`tests/engine/core/brute_force.py`). Per
kind: yes rate, mean p and log-loss of each on the questions' own answers.
"""

from __future__ import annotations

import time
from collections import defaultdict

import numpy as np

from benchmarks.engine_quality import cross_fitted_arguments, training_scenes
from benchmarks.report import commit, machine, publish
from engine.audit import run as audit_run
from engine.core.drivers import StreamStep
from engine.core.oracle import PreparedScene
from engine.core.proposer import EngineSettings
from engine.core.questions import Answer, AttributeQuestion, Kind, Question, RelationshipQuestion
from engine.core.scene import Scene
from engine.core.vocabulary import Vocabulary
from tests.engine.core import brute_force

Row = tuple[str, float, float, bool]  # kind, p as reported, p with the weighted level over all of B, yes


def asked(
    vocabulary: Vocabulary, scenes: list[Scene], settings: EngineSettings, seed: int, count: int
) -> list[tuple[int, list[tuple[Question, Answer]], StreamStep]]:
    """(training scene, history before the step, step) of every answered attribute and relationship
    question of the cross-fitted streams."""
    out = []
    run_automatic = audit_run.run_automatic
    position = {id(scene): i for i, scene in enumerate(scenes)}

    def recording(stats, scene, settings, seed_of, **kwargs):
        steps = run_automatic(stats, scene, settings, seed_of, **kwargs)
        history: list[tuple[Question, Answer]] = []
        for step in steps:
            if (
                isinstance(step.question, AttributeQuestion | RelationshipQuestion)
                and step.answer != Answer.AMBIGUOUS
            ):
                out.append((position[id(scene)], list(history), step))
            history.append((step.question, step.answer))
        return steps

    audit_run.run_automatic = recording
    try:
        audit_run.training_streams(vocabulary, scenes, settings, seed, folds=5, limit=count)
    finally:
        audit_run.run_automatic = run_automatic
    return out


def over_all_of_b(
    vocabulary: Vocabulary,
    training: list[PreparedScene],
    history: list[tuple[Question, Answer]],
    step: StreamStep,
    settings: EngineSettings,
) -> float:
    """The step's p with its weighted found level over every image of B (before decision 0057)."""
    question = step.question
    depth = len(brute_force.instantiation_history(history)) + 1
    yes_by_d, population_by_d = [0] * depth, [0] * depth
    for scene in training:
        found = brute_force.disagreements(scene, history)
        if found is None:
            continue
        d, binding = found
        holds = _holds(vocabulary, scene, binding, history, question)
        if holds is not None:
            population_by_d[d] += 1
            yes_by_d[d] += holds
    levels = [
        *step.estimate.levels[:-1],
        brute_force.weighted(yes_by_d, population_by_d, settings.consistency_weight),
    ]
    p = levels[0][0] / levels[0][1]
    for i, (yes, n) in enumerate(levels[1:], start=1):
        strength = settings.weighted_strength if i == len(levels) - 1 else settings.prior_strength
        p = (yes + strength * p) / (n + strength)
    return p


def _holds(vocabulary, scene, binding, history, question) -> bool | None:
    """Whether the question holds for the bound object (pair), None when it is left out (unknown
    attributes, or a fact about it disagrees)."""
    if isinstance(question, AttributeQuestion):
        obj = scene.scene.objects[binding.object_of(question.label)]
        facts = _attribute_facts(history, question)
        if not obj.attributes_known or any(
            brute_force._has(obj.attributes, kind, named) != said for kind, named, said in facts
        ):
            return None
        return brute_force._has(obj.attributes, question.kind, question.attributes)
    a, b = binding.object_of(question.subject), binding.object_of(question.object)
    for fact, given in history:
        if (
            given != Answer.AMBIGUOUS
            and isinstance(fact, RelationshipQuestion)
            and {fact.subject, fact.object} == {question.subject, question.object}
        ):
            x, y = (a, b) if fact.subject == question.subject else (b, a)
            if brute_force._related(vocabulary, scene.scene, x, fact.relationship, y) != (
                given == Answer.YES
            ):
                return None
    return brute_force._related(vocabulary, scene.scene, a, question.relationship, b)


def _attribute_facts(history, question: AttributeQuestion) -> list[tuple[Kind, tuple[str, ...], bool]]:
    """The facts about the question's label (docs/engine.md): the attributes its defining question
    named, and every answered attribute question about it."""
    defining = brute_force.defining_question(history, question.label)
    facts = [(Kind.ATTR_AND, defining.attributes, True)] if defining.attributes else []
    for fact, given in history:
        if given != Answer.AMBIGUOUS and isinstance(fact, AttributeQuestion) and fact.label == question.label:
            facts.append((fact.kind, fact.attributes, given == Answer.YES))
    return facts


def summary(rows: list[Row]) -> dict[str, dict[str, float]]:
    by_kind: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_kind[row[0]].append(row)
        by_kind["all"].append(row)
    out = {}
    for kind, chosen in sorted(by_kind.items()):
        yes = np.array([r[3] for r in chosen], dtype=float)
        result: dict[str, float] = {"questions": len(chosen), "yes_rate": float(yes.mean())}
        for name, column in (("now", 1), ("before", 2)):
            p = np.clip([r[column] for r in chosen], 1e-6, 1 - 1e-6)
            result[f"mean_p_{name}"] = float(np.mean(p))
            result[f"log_loss_{name}"] = float(-np.mean(yes * np.log(p) + (1 - yes) * np.log(1 - p)))
        out[kind] = result
    return out


def render(name: str, result: dict, streams: int, command: str, seconds: float) -> str:
    lines = [
        f"## What the defining histories are worth: {name} (issue 19, decision 0057)",
        "",
        f"Command: `{command}` (commit {commit()}, {machine()}); {seconds:.0f} s. {streams} cross-fitted "
        "training streams; no held-out scene is read. p now: as the engine reported it; p before: the same "
        "questions with the weighted found level over every image of B.",
        "",
        "| kind | questions | yes rate | mean p now | log-loss now | mean p before | log-loss before |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, v in result.items():
        lines.append(
            f"| {kind} | {v['questions']} | {v['yes_rate']:.3f} | {v['mean_p_now']:.3f} | "
            f"{v['log_loss_now']:.4f} | {v['mean_p_before']:.3f} | {v['log_loss_before']:.4f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = cross_fitted_arguments(__doc__, "parking", 300)
    args = parser.parse_args()
    vocabulary, scenes = training_scenes(args.vocabulary, args.train)
    started = time.perf_counter()
    settings = EngineSettings()
    steps = asked(vocabulary, scenes, settings, args.seed, args.streams)
    prepared = [PreparedScene.build(scene, vocabulary, 0.0) for scene in scenes]
    fold_of = audit_run.folds_of(len(scenes), args.seed)
    rows: list[Row] = []
    for index, history, step in steps:
        training = [prepared[i] for i in range(len(scenes)) if fold_of[i] != fold_of[index]]
        before = over_all_of_b(vocabulary, training, history, step, settings)
        assert step.estimate.p is not None
        rows.append((str(step.question.kind), step.estimate.p, before, step.answer == Answer.YES))
    seconds = time.perf_counter() - started
    publish(
        "benchmarks.found_where_found",
        f"found-where-found-{args.vocabulary}",
        lambda command: render(args.vocabulary, summary(rows), args.streams, command, seconds),
        args.write,
    )


if __name__ == "__main__":
    main()
