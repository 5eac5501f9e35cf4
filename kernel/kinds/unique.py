"""unique(t, A, w): "Is there a unique person that is female in the designated region?" Yes when exactly
one object of type t with the attributes A, not labelled yet, is visible in region w; a yes labels it
with the next label of its type ("person 2"). Its candidates need `min_evidence` (decision 0056)."""

from __future__ import annotations

from typing import Any

from kernel.kinds.families import InstantiationKind


class Unique(InstantiationKind):
    name = "unique"
    title = "uniqueness"
    article = "a unique"
    labels = True
    needs_evidence = True

    def holds(self, count: Any) -> Any:
        return count == 1


KIND = Unique()
