"""exist(t, A, w): "Is there a person that is walking in the designated region?" Yes when at least one
object of type t with the attributes A, not labelled yet, is visible in region w. A yes keeps the next
instantiation questions inside w (the story line's focus, docs/method.md section 6)."""

from __future__ import annotations

from typing import Any

from kernel.kinds.families import InstantiationKind


class Exist(InstantiationKind):
    name = "exist"
    title = "existence"
    focuses = True

    def holds(self, count: Any) -> Any:
        return count >= 1


KIND = Exist()
