"""The verdicts on the engine's held-out figures, by the rulings of issue 34 (decisions 0058 and 0060).

Ruling 1: a question kind is judged on the **mean over independent draws** (each with its own training
set and its own held-out scenes, `benchmarks.draw_spread`), with the standard error from the draws' own
spread; a single draw is reported against the draw-to-draw spread and never judged alone. The targets:
|mean gap| at most 0.03 for every judged kind, the engine-p guesser's mean at most 0.54 overall and 0.56
per judged kind. A kind is judged only where it has at least 100 answered questions on every draw. The
learned guesser is still read on the published draw (`learned_guesser_verdicts`).

Pure Python: the benchmarks, the audit report and the test card all read their verdicts here.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TARGETS = {
    "engine_p": 0.54,  # the engine-p guesser's mean accuracy, overall
    "engine_p_kind": 0.56,  # the same, per judged kind
    "guesser": 0.56,  # the learned guesser, overall, on the published draw
    "guesser_kind": 0.58,  # the same, per judged kind
    "gap_kind": 0.03,  # |mean p - yes rate|, per judged kind
    "length": 30.0,  # mean answered questions per stream
}
JUDGED = 100  # answered held-out questions a kind needs on every draw to be judged
DRAWS = 8  # independent draws a verdict rests on


@dataclass(frozen=True)
class Mean:
    """A figure's mean over independent draws, with the standard error from the draws' own spread."""

    mean: float
    standard_error: float
    spread: float  # the standard deviation from draw to draw
    draws: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Mean:
        if len(values) < 2:
            raise ValueError("a mean over draws needs at least two draws")
        spread = statistics.stdev(values)
        return cls(statistics.fmean(values), spread / math.sqrt(len(values)), spread, len(values))

    def __str__(self) -> str:
        return f"{self.mean:+.3f} ± {self.standard_error:.3f}"


@dataclass(frozen=True)
class KindVerdict:
    kind: str
    judged: bool  # at least JUDGED answered questions on every draw
    gap: Mean  # mean p - yes rate
    engine_p: Mean  # the engine-p guesser's accuracy
    gap_met: bool | None  # None: not judged
    engine_p_met: bool | None

    @property
    def met(self) -> bool | None:
        if not self.judged:
            return None
        return bool(self.gap_met and self.engine_p_met)

    def wording(self) -> str:
        if not self.judged:
            return f"not judged: fewer than {JUDGED} answered questions on some draw"
        misses = []
        if not self.gap_met:
            misses.append(f"mean gap {self.gap} beyond {TARGETS['gap_kind']}")
        if not self.engine_p_met:
            misses.append(
                f"engine-p guesser {self.engine_p.mean:.3f} ± {self.engine_p.standard_error:.3f} "
                f"above {TARGETS['engine_p_kind']}"
            )
        return "met" if not misses else "not met: " + "; ".join(misses)


def judge_kind(kind: str, draws: Sequence[Mapping[str, float]]) -> KindVerdict:
    """One kind's verdict from its figures on each independent draw: each a mapping with `questions`,
    `gap` (mean p - yes rate) and `engine_p` (the engine-p guesser's accuracy)."""
    judged = len(draws) >= 2 and all(d["questions"] >= JUDGED for d in draws)
    gap = Mean.of([d["gap"] for d in draws])
    engine_p = Mean.of([d["engine_p"] for d in draws])
    return KindVerdict(
        kind,
        judged,
        gap,
        engine_p,
        abs(gap.mean) <= TARGETS["gap_kind"] if judged else None,
        engine_p.mean <= TARGETS["engine_p_kind"] if judged else None,
    )


@dataclass(frozen=True)
class DrawsVerdict:
    kinds: dict[str, KindVerdict]
    engine_p: Mean  # the engine-p guesser's accuracy over every answered question of a draw
    draws: int

    @property
    def engine_p_met(self) -> bool:
        return self.engine_p.mean <= TARGETS["engine_p"]

    @property
    def met(self) -> bool:
        return self.engine_p_met and all(v.met is not False for v in self.kinds.values())

    def summary(self) -> str:
        failing = [v.kind for v in self.kinds.values() if v.met is False]
        judged = [v.kind for v in self.kinds.values() if v.judged]
        head = (
            f"over {self.draws} independent draws, {len(judged)} kind{'s' if len(judged) != 1 else ''} judged"
        )
        if self.met:
            return f"every target met ({head})"
        missed = failing + ([] if self.engine_p_met else ["the overall engine-p guesser"])
        return f"not met by {', '.join(missed)} ({head})"


def judge_draws(draws: Sequence[Mapping[str, Any]]) -> DrawsVerdict:
    """The verdict on a vocabulary from its independent draws, each `{"overall": {"engine_p": ...},
    "kinds": {kind: {"questions", "gap", "engine_p"}}}`. Only kinds asked on every draw are judged."""
    if len(draws) < 2:
        raise ValueError("a verdict needs at least two independent draws; one draw is never judged alone")
    kinds = sorted(set.intersection(*(set(d["kinds"]) for d in draws)))
    return DrawsVerdict(
        {kind: judge_kind(kind, [d["kinds"][kind] for d in draws]) for kind in kinds},
        Mean.of([d["overall"]["engine_p"] for d in draws]),
        len(draws),
    )


def one_draw_reading(gap: float, spread: float | None, *, against: str = "draw-to-draw") -> str:
    """How one draw's gap (mean p - yes rate) reads against a spread: reported, never judged alone.
    `spread` is the gap's standard deviation from draw to draw where `benchmarks.draw_spread` measured
    it; an audit of one test has only a right p's on its questions (`against`), which leaves out the
    training set's draw and so is smaller."""
    if spread is None or not math.isfinite(spread) or spread <= 0:
        return "one draw: reported, not judged"
    z = gap / spread
    where = "within" if abs(z) <= 2 else "beyond"
    return f"one draw, not judged: {gap:+.3f} is {abs(z):.1f} {against} spreads from 0 ({where} two)"


def learned_guesser_verdicts(report: Mapping[str, Any]) -> dict[str, bool]:
    """The learned blind guesser's targets, read on one audit report (the published draw)."""
    kinds = [k for k in report["per_kind"].values() if k["questions"] >= JUDGED]
    return {
        "guesser": report["guesser"]["accuracy"] <= TARGETS["guesser"],
        "guesser_kind": all(k["guesser"]["accuracy"] <= TARGETS["guesser_kind"] for k in kinds),
    }
