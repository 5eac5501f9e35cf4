"""What the statistics need to know of a vocabulary, read once from the kernel's: each type's attributes
(the universe compared on a matched box), its exclusive groups (one value kept by the merge) and the
symmetric predicates (a relationship stated either way)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kernel.vocabulary import Vocabulary


@dataclass(frozen=True)
class VocabularyRules:
    attribute_universe: Mapping[str, frozenset[str]]
    exclusive: Mapping[str, tuple[frozenset[str], ...]]
    symmetric: frozenset[str]


def rules_of(vocabulary: Vocabulary) -> VocabularyRules:
    """The rules to pass to `image_agreement`, `merge_image`, `estimate_crowd` and `score_against_gold`."""
    return VocabularyRules(
        attribute_universe={t.name: frozenset(t.attributes) for t in vocabulary.types},
        exclusive={
            t.name: tuple(frozenset(g.values) for g in t.groups if g.exclusive) for t in vocabulary.types
        },
        symmetric=frozenset(r.name for r in vocabulary.relationships if r.symmetric),
    )
