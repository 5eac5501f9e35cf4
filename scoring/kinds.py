"""The question kinds (docs/method.md section 4), in the order every report lists them.

The one definition: the engine core, the truthing card, the scores and the API all read it here.
"""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    EXIST = "exist"
    UNIQUE = "unique"
    ATTR = "attr"
    ATTR_AND = "attr_and"
    ATTR_OR = "attr_or"
    REL = "rel"


KINDS: tuple[str, ...] = tuple(kind.value for kind in Kind)
INSTANTIATION_KINDS = frozenset({Kind.EXIST, Kind.UNIQUE})
ATTRIBUTE_KINDS = frozenset({Kind.ATTR, Kind.ATTR_AND, Kind.ATTR_OR})
