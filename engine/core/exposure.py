"""The draw of a stream dealt to one session of many (docs/engine.md step 3, decision 0052).

An `Exposure` says how often each candidate's fact was revealed to earlier sessions on the image; the
draw then keeps the least exposed of the preferred candidates, or, when every one of them was told, the
untold ones of their group. It never changes p, the population or which candidates are unpredictable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from engine.core.candidates import Choice, Proposal
from kernel.questions import Answer, Question


class Exposure(Protocol):
    """How many times the fact a question asks about was revealed to earlier sessions on this image,
    given the history it is asked after. In two stages so that the history's part is worked out once
    per proposal, not once per candidate."""

    def after(self, history: Sequence[tuple[Question, Answer]]) -> Callable[[Question], int]:
        """The exposure of any question asked after `history` (the stream's entries, rejected ones
        included). It must depend on the history and the question alone, so that a stream resumed from
        its stored answers with the same exposure proposes the same questions."""
        ...


def least_exposed(
    choice: Choice, exposure: Exposure, history: Sequence[tuple[Question, Answer]]
) -> list[Proposal]:
    """The least exposed preferred candidates; but when earlier sessions were told every preferred
    one, the candidates of their group that no earlier session was told, if there are any. A fact
    told before is known to whoever saw it, while a question merely less sharp is still one a blind
    guesser gets right at most 1/2 + epsilon of the time. Only facts never told, though: falling
    back to the merely less told ones would, once every candidate has been told, make the draw
    less sharp for good (the blind prior gained 0.016 by it: docs/decisions/0052-exposure-draw.md).
    The exposure is asked once per proposal, and about the rest of the group only when every
    preferred candidate was told."""
    if not choice.preferred:
        return []
    exposure_of = exposure.after(history)
    preferred, told = _least(choice.preferred, exposure_of)
    if told > 0:
        inside = {p.question for p in choice.preferred}
        untold = [w for w in choice.group if w.question not in inside and exposure_of(w.question) == 0]
        if untold:
            return untold
    return preferred


def _least(proposals: Sequence[Proposal], exposure: Callable[[Question], int]) -> tuple[list[Proposal], int]:
    """The least exposed of `proposals`, in their order, and their exposure."""
    counts = [exposure(p.question) for p in proposals]
    least = min(counts)
    return [p for p, count in zip(proposals, counts, strict=True) if count == least], least
