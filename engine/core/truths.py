"""An instantiation question answered on many images at once, from counts of matching objects and of
objects whose attributes are unknown (engine.core.training; one image at a time: engine.core.oracle)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kernel.kinds import InstantiationKind, kind_of
from kernel.questions import Answer, InstantiationQuestion

YES, NO, AMBIGUOUS = np.int8(1), np.int8(0), np.int8(2)
CODE = {Answer.YES: YES, Answer.NO: NO, Answer.AMBIGUOUS: AMBIGUOUS}

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


def instantiation_kind(question: InstantiationQuestion) -> InstantiationKind:
    kind = kind_of(question)
    assert isinstance(kind, InstantiationKind)
    return kind


def truths(
    kind: InstantiationKind, matches: npt.NDArray[np.integer[Any]], unknown: npt.NDArray[np.integer[Any]]
) -> tuple[BoolArray, BoolArray]:
    """`InstantiationKind.answer_from_counts` for many images at once: per cell of `matches` (its last
    axis: images; `unknown` per image), whether it answers yes, and whether it answers at all (yes or
    no, not ambiguous): yes when the kind holds for every count between the certain matches and those
    plus the objects whose attributes are unknown, no when for none. Only the images with such objects
    are looked at more than once."""
    holds = np.asarray(kind.holds(matches), dtype=bool)
    uncertain = (unknown > 0).nonzero()[0]
    if not len(uncertain):  # every count is certain: answered everywhere
        return holds, np.ones_like(holds)
    every, some = holds.copy(), holds.copy()
    if len(uncertain):
        certain_matches, possible = matches[..., uncertain], unknown[uncertain]
        all_hold, any_holds = holds[..., uncertain].copy(), holds[..., uncertain].copy()
        for k in range(1, int(possible.max()) + 1):
            counted = possible >= k
            holds_k = np.asarray(kind.holds(certain_matches + k), dtype=bool)
            all_hold &= holds_k | ~counted
            any_holds |= holds_k & counted
        every[..., uncertain], some[..., uncertain] = all_hold, any_holds
    return every, every | ~some


def answer_codes(kind: InstantiationKind, matches: IntArray, unknown: IntArray) -> npt.NDArray[np.int8]:
    """`InstantiationKind.answer_from_counts`, for every image at once."""
    yes, decided = truths(kind, matches, unknown)
    return np.where(yes, YES, np.where(decided, NO, AMBIGUOUS)).astype(np.int8)
