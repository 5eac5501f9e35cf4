"""How much consistent evidence an estimate needs, read off cross-fitted training streams (issue 19,
decision 0056).

    python -m benchmarks.evidence_floor [--vocabulary street|parking|marina] [--streams 500] [--write]

The streams are those the audit learns from (`engine.audit.run.training_streams`: each on a training
scene, with statistics fitted on the other folds), generated *without* a floor, so no held-out scene is
read and every question the engine would have asked is there. Their questions are split by how much the
consistency-weighted level (the last level of every chain, docs/engine.md) weighs. For each kind and
weight band: how many were answered, their yes rate, mean p and gap (mean p - yes rate).
"""

from __future__ import annotations

import time
from collections import defaultdict

import numpy as np

from benchmarks.engine_quality import cross_fitted_arguments, training_scenes
from benchmarks.report import cross_fitted_section, publish
from engine.audit.run import training_streams
from engine.core.settings import EngineSettings
from kernel.questions import Answer

# Upper edges of the weight bands of the weighted level (the last band is open).
EDGES = (1.0, 2.0, 3.0, 5.0, 10.0, 20.0)


def band(weight: float) -> str:
    lower = 0.0
    for edge in EDGES:
        if weight < edge:
            return f"[{lower:g}, {edge:g})"
        lower = edge
    return f"{EDGES[-1]:g} or more"


def by_evidence(streams: list) -> dict[tuple[str, str], dict[str, float]]:
    """Per (question kind, weight band of the chain's last level): answered, yes rate, mean p, gap."""
    rows: dict[tuple[str, str], list[tuple[float, bool]]] = defaultdict(list)
    for steps in streams:
        for step in steps:
            question, estimate = step.question, step.estimate
            if step.answer == Answer.AMBIGUOUS:
                continue
            assert estimate.p is not None
            rows[(str(question.kind), band(estimate.levels[-1][1]))].append(
                (estimate.p, step.answer == Answer.YES)
            )
    order = [band(e - 0.5) for e in EDGES] + [band(EDGES[-1])]
    out = {}
    for kind in sorted({k for k, _ in rows}):
        for name in order:
            if (kind, name) in rows:
                p = np.array([r[0] for r in rows[(kind, name)]])
                yes = np.array([r[1] for r in rows[(kind, name)]], dtype=float)
                out[(kind, name)] = {
                    "answered": len(p),
                    "yes_rate": float(yes.mean()),
                    "mean_p": float(p.mean()),
                    "gap": float(p.mean() - yes.mean()),
                }
    return out


def render(name: str, result: dict, streams: int, command: str, seconds: float) -> str:
    return cross_fitted_section(
        f"Evidence behind the estimates: {name} (issue 19, decision 0056)",
        command,
        seconds,
        streams,
        ", generated without an evidence floor",
        ["kind", "weight of the weighted level", "answered", "yes rate", "mean p", "gap"],
        [
            [
                kind,
                weight,
                str(v["answered"]),
                f"{v['yes_rate']:.3f}",
                f"{v['mean_p']:.3f}",
                f"{v['gap']:+.3f}",
            ]
            for (kind, weight), v in result.items()
        ],
    )


def main() -> None:
    parser = cross_fitted_arguments(__doc__, "street", 500)
    args = parser.parse_args()
    vocabulary, scenes = training_scenes(args.vocabulary, args.train)
    started = time.perf_counter()
    settings = EngineSettings(min_evidence=0.0)
    streams = training_streams(vocabulary, scenes, settings, args.seed, folds=5, limit=args.streams)
    result = by_evidence(streams)
    seconds = time.perf_counter() - started
    publish(
        "benchmarks.evidence_floor",
        f"evidence-floor-{args.vocabulary}",
        lambda command: render(args.vocabulary, result, len(streams), command, seconds),
        args.write,
    )


if __name__ == "__main__":
    main()
