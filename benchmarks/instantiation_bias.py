"""Where the uniqueness questions' calibration gap comes from (issue 19): p against the truth on held-out
scenes, for the questions the engine asked and for candidates it did not pick, by how many labels the
stream had instantiated.

    python -m benchmarks.instantiation_bias [--vocabulary street|parking|marina] [--test 200] [--every 3]

Streams run on held-out scenes as `engine.audit.run.held_out_streams` runs them (statistics fitted on the
2,591 training scenes, the oracle answering). Every `--every`-th step, before the step is answered,
`--sample` instantiation questions (any type, no or one attribute, any region, exist or unique) are drawn
at random; the unpredictable ones (population at least `min_population`, abs(p - 0.5) at most
`epsilon`: those the engine could pick) are answered by the oracle on the held-out scene. For each the
table has the engine's p, the pooled level's rate and the rate over the training images that give the
*whole* instantiation history (d = 0 in docs/engine.md, the images the weighted level counts 1), when
there are at least 5 of them. If p is right on candidates the engine did not pick but wrong on those it
picked, selection on a noisy p is the cause; if p is wrong on both while the d = 0 rate is right, the
populations condition on too little of the history.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import numpy as np

from benchmarks.engine_quality import VOCABULARIES, held_out_arguments, load_scenes
from benchmarks.report import commit, machine, write_section
from engine.core.candidates import attribute_sets
from engine.core.drivers import stream_seed
from engine.core.oracle import answer
from engine.core.proposer import Stream
from engine.core.settings import EngineSettings
from engine.core.statistics import FittedStatistics, fit
from kernel.estimates import Estimate
from kernel.kinds import instantiation_kinds
from kernel.prepared import Binding, PreparedScene
from kernel.questions import Answer, InstantiationQuestion
from kernel.scene import Scene
from kernel.vocabulary import load_vocabulary

Row = dict[str, Any]
EXACT_MIN = 5  # training images giving the whole instantiation history, for the d = 0 rate


def every_instantiation_question(stats: FittedStatistics) -> list[InstantiationQuestion]:
    vocabulary = stats.vocabulary
    return [
        InstantiationQuestion(kind, object_type.name, attributes, region.id)
        for object_type in vocabulary.types
        for size in (0, 1)
        for attributes in attribute_sets(object_type, size, True)
        for region in vocabulary.regions
        for kind in (k.name for k in instantiation_kinds())
    ]


def exact_level(stream: Stream, question: InstantiationQuestion) -> tuple[int, int]:
    """(yes, decidable) over the training images that give every instantiation answer of the history."""
    vocabulary = stream.stats.vocabulary
    t = vocabulary.type_index[question.type]
    region = vocabulary.region_index[question.region]
    if question.attributes:
        mask = vocabulary.object_type(question.type).mask_of(question.attributes)
        counts = stream.training.counts_with_attributes(t, [region], [mask])[question.kind][0]
    else:
        counts = stream.training.counts_without_attributes(t, [region])[question.kind]
    return int(counts.yes[0, 0]), int(counts.population[0, 0])


def rows_of_scene(
    stats: FittedStatistics,
    scene: Scene,
    settings: EngineSettings,
    seed: tuple[int, ...],
    pool: list[InstantiationQuestion],
    every: int,
    sample: int,
) -> Iterable[Row]:
    prepared = PreparedScene.build(scene, stats.vocabulary, stats.min_overlap)
    stream, binding, labels = Stream(stats, settings, seed), Binding(), 0
    rng = np.random.default_rng([*seed, 99])
    for step in range(settings.max_questions * 3):
        proposal = stream.propose()
        if proposal is None:
            return
        if step % every == 0:
            for index in rng.choice(len(pool), size=min(sample, len(pool)), replace=False):
                question = pool[int(index)]
                if question in stream.story.rejected:
                    continue
                estimate = stream.estimate(question)
                if estimate.p is None or estimate.population < settings.min_population:
                    continue
                if abs(estimate.p - 0.5) > settings.epsilon:
                    continue
                given, _ = answer(prepared, binding, question)
                if given != Answer.AMBIGUOUS:
                    yield _row(stream, question, estimate, given, labels, picked=False)
        given, singled_out = answer(prepared, binding, proposal.question)
        if isinstance(proposal.question, InstantiationQuestion) and given != Answer.AMBIGUOUS:
            yield _row(stream, proposal.question, proposal.estimate, given, labels, picked=True)
        label = stream.record(proposal.question, given)
        if label is not None:
            assert singled_out is not None
            binding.bind(label, singled_out)
            labels += 1


def _row(
    stream: Stream,
    question: InstantiationQuestion,
    estimate: Estimate,
    given: Answer,
    labels: int,
    picked: bool,
) -> Row:
    (pooled_yes, pooled_n), _ = estimate.levels
    assert estimate.p is not None  # only questions with a population are kept
    exact_yes, exact_n = exact_level(stream, question)
    return {
        "picked": picked,
        "kind": str(question.kind),
        "labels": min(labels, 2),
        "p": float(estimate.p),
        "pooled": pooled_yes / pooled_n,
        "exact": exact_yes / exact_n if exact_n >= EXACT_MIN else None,
        "yes": given == Answer.YES,
    }


def table(rows: list[Row]) -> str:
    groups: dict[tuple[str, bool, int], list[Row]] = defaultdict(list)
    for row in rows:
        groups[(row["kind"], row["picked"], row["labels"])].append(row)
    lines = [
        "| kind | questions | labels before | answered | yes rate | mean p | gap | pooled rate "
        "| with d = 0 images | their yes rate | their d = 0 rate | their mean p |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (kind, picked, labels), group in sorted(
        groups.items(), key=lambda kv: (kv[0][0], not kv[0][1], kv[0][2])
    ):
        yes = np.array([r["yes"] for r in group], dtype=float)
        p = np.array([r["p"] for r in group])
        pooled = np.array([r["pooled"] for r in group])
        exact = [r for r in group if r["exact"] is not None]
        exact_cells = "| 0 | | | "
        if exact:
            exact_cells = (
                f"| {len(exact)} | {np.mean([r['yes'] for r in exact]):.3f} "
                f"| {np.mean([r['exact'] for r in exact]):.3f} | {np.mean([r['p'] for r in exact]):.3f} "
            )
        lines.append(
            f"| {kind} | {'asked' if picked else 'not picked'} | {labels if labels < 2 else '2 or more'} "
            f"| {len(group)} | {yes.mean():.3f} | {p.mean():.3f} | {p.mean() - yes.mean():+.3f} "
            f"| {pooled.mean():.3f} {exact_cells}|"
        )
    return "\n".join(lines)


def main() -> None:
    parser = held_out_arguments(__doc__, "street", 200)
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--sample", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    vocabulary = load_vocabulary(VOCABULARIES[args.vocabulary][0])
    train = load_scenes(args.vocabulary, vocabulary, args.train, seed=1)
    test = load_scenes(args.vocabulary, vocabulary, 1000, seed=2)[: args.test]
    started = time.perf_counter()
    stats, settings = fit(vocabulary, train), EngineSettings()
    pool = every_instantiation_question(stats)
    rows = [
        row
        for i, scene in enumerate(test)
        for row in rows_of_scene(
            stats, scene, settings, stream_seed(args.seed, i), pool, args.every, args.sample
        )
    ]
    command = (
        f"python -m benchmarks.instantiation_bias --vocabulary {args.vocabulary} --test {args.test} "
        f"--every {args.every} --sample {args.sample}"
    )
    body = (
        f"## Where the uniqueness gap comes from: {args.vocabulary} (issue 19)\n\n"
        f"Command: `{command}` (commit {commit()}, {machine()}); "
        f"{time.perf_counter() - started:.0f} s. {len(test)} held-out scenes, default settings.\n\n"
        + table(rows)
    )
    print(body)
    if args.write:
        write_section(f"instantiation-bias-{args.vocabulary}", body)


if __name__ == "__main__":
    main()
