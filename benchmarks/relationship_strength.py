"""The strength of a relationship question's weighted found level, judged on the questions it makes the
engine pick (issue 19, decision 0059).

    python -m benchmarks.relationship_strength [--vocabulary street|parking|marina] [--streams 1000]
        [--strengths 2,5,10,20,40] [--write]

For each strength, the audit's cross-fitted training streams (`engine.audit.run.training_streams`: each
on a training scene, with statistics fitted on the other folds, so no held-out scene is read) are
generated *with* it, and their relationship questions are scored on their own oracle answers. The
engine draws among many relationship candidates whose last level holds a handful of images; keeping
the questions fixed while the strength changes (`benchmarks.prior_strength`) cannot see what that
selection does to p, generating the streams with each strength does.
"""

from __future__ import annotations

import time

from benchmarks.engine_quality import cross_fitted_arguments, training_scenes
from benchmarks.prior_strength import streams_under
from benchmarks.report import cross_fitted_section, publish
from kernel.kinds import relationship_kinds

STRENGTHS = "2,5,10,20,40"


def render(name: str, result: dict, streams: int, command: str, seconds: float) -> str:
    rows = []
    for value, kinds in result.items():
        # The relationship family's one kind (this benchmark reads relationship questions only).
        rel = next((kinds[k.name] for k in relationship_kinds() if k.name in kinds), None)
        if rel is None:
            rows.append([f"{value:g}", "0", "", "", "", "", "", f"{kinds['all']['mean_length']:.1f}"])
            continue
        rows.append(
            [
                f"{value:g}",
                str(rel["questions"]),
                f"{rel['yes_rate']:.3f}",
                f"{rel['mean_p']:.3f}",
                f"{rel['gap']:+.3f} ± {rel['sd']:.3f}",
                f"{rel['log_loss']:.4f}",
                f"{rel['engine_p']:.3f}",
                f"{kinds['all']['mean_length']:.1f}",
            ]
        )
    return cross_fitted_section(
        f"Relationship found level's strength: {name} (issue 19, decision 0059)",
        command,
        seconds,
        streams,
        ", generated with each strength (relationship questions; ± is the standard deviation a right p's "
        "gap would have)",
        [
            "strength",
            "relationship questions",
            "yes rate",
            "mean p",
            "gap (mean p - yes rate)",
            "log-loss",
            "engine-p guesser",
            "mean length",
        ],
        rows,
    )


def main() -> None:
    parser = cross_fitted_arguments(__doc__, "street", 1000)
    parser.add_argument("--strengths", default=STRENGTHS, help="comma-separated relationship strengths")
    args = parser.parse_args()
    values = [float(v) for v in args.strengths.split(",")]
    vocabulary, scenes = training_scenes(args.vocabulary, args.train)
    started = time.perf_counter()
    result = streams_under(vocabulary, scenes, values, args.streams, args.seed, "relationship_strength")
    seconds = time.perf_counter() - started
    publish(
        "benchmarks.relationship_strength",
        f"relationship-strength-{args.vocabulary}",
        lambda command: render(args.vocabulary, result, args.streams, command, seconds),
        args.write,
    )


if __name__ == "__main__":
    main()
