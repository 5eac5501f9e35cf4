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
from benchmarks.report import cross_fitted_section, publish
from engine.audit import run as audit_run
from engine.core.drivers import StreamStep
from engine.core.settings import EngineSettings
from kernel.prepared import PreparedScene
from kernel.questions import Answer, AttributeQuestion, Question, RelationshipQuestion
from kernel.scene import Scene
from kernel.vocabulary import Vocabulary
from tests.engine.core import brute_force

Row = tuple[str, float, float, bool]  # kind, p as reported, p with the weighted level over all of B, yes


def asked(
    vocabulary: Vocabulary, scenes: list[Scene], settings: EngineSettings, seed: int, count: int
) -> list[tuple[int, list[tuple[Question, Answer]], StreamStep]]:
    """(training scene, history before the step, step) of every answered attribute and relationship
    question of the cross-fitted streams."""
    streams = audit_run.training_streams(vocabulary, scenes, settings, seed, folds=5, limit=count)
    indices = audit_run.training_stream_scenes(len(scenes), seed, folds=5, limit=count)
    out = []
    for index, steps in zip(indices, streams, strict=True):
        for position, step in enumerate(steps):
            if (
                isinstance(step.question, AttributeQuestion | RelationshipQuestion)
                and step.answer != Answer.AMBIGUOUS
            ):
                out.append((index, [(s.question, s.answer) for s in steps[:position]], step))
    return out


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
    return cross_fitted_section(
        f"What the defining histories are worth: {name} (issue 19, decision 0057)",
        command,
        seconds,
        streams,
        ". p now: as the engine reported it; p before: the same questions with the weighted found level "
        "over every image of B",
        ["kind", "questions", "yes rate", "mean p now", "log-loss now", "mean p before", "log-loss before"],
        [
            [
                kind,
                str(v["questions"]),
                f"{v['yes_rate']:.3f}",
                f"{v['mean_p_now']:.3f}",
                f"{v['log_loss_now']:.4f}",
                f"{v['mean_p_before']:.3f}",
                f"{v['log_loss_before']:.4f}",
            ]
            for kind, v in result.items()
        ],
    )


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
        before, _, _ = brute_force.brute_force(
            vocabulary,
            training,
            history,
            step.question,
            settings.prior_strength,
            settings.consistency_weight,
            settings.weighted_strength,
            where_found=False,
            relationship_strength=settings.relationship_strength,
        )
        assert before is not None
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
