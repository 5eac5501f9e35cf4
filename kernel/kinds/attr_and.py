"""attr_and(k, a, b): "Is vehicle 1 parked and a car?" Yes when the object labelled k has both
attributes; never asked of two values of one exclusive group (never true)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kernel.kinds.families import AttributeKind


class AttrAnd(AttributeKind):
    name = "attr_and"
    title = "attribute pair (and)"
    arity = 2
    joiner = "and"

    def holds(self, has: Sequence[Any]) -> Any:
        return has[0] & has[1]


KIND = AttrAnd()
