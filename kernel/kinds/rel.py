"""rel(k, r, j): "Is person 1 closer to the camera than vehicle 1?" Yes when the scene relates the
objects labelled k and j by r (a symmetric relationship in either stored direction)."""

from __future__ import annotations

from kernel.kinds.families import RelationshipKind
from kernel.questions import RelationshipQuestion


class Rel(RelationshipKind):
    name = "rel"
    title = "relationship"


KIND = Rel()
# The relationship family has one kind: its questions carry this one's name.
RelationshipQuestion.kind = KIND.name
