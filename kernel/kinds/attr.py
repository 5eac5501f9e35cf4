"""attr(k, a): "Is person 2 carrying something?" Yes when the object labelled k has the attribute a."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kernel.kinds.families import AttributeKind
from kernel.questions import AttributeQuestion


class Attr(AttributeKind):
    name = "attr"
    title = "attribute"
    arity = 1

    def holds(self, has: Sequence[Any]) -> Any:
        return has[0]

    def told_attributes(self, question: AttributeQuestion, yes: bool) -> dict[str, bool]:
        # The audit's guesser reads what single-attribute answers said about the object.
        return {question.attributes[0]: yes}


KIND = Attr()
