"""attr_or(k, a, b): "Is person 2 walking or running?" Yes when the object labelled k has at least one
of the two attributes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kernel.kinds.families import AttributeKind


class AttrOr(AttributeKind):
    name = "attr_or"
    title = "attribute pair (or)"
    arity = 2
    joiner = "or"

    def holds(self, has: Sequence[Any]) -> Any:
        return has[0] | has[1]


KIND = AttrOr()
