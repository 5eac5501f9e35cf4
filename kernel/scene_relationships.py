"""A scene graph's relationships, checked (kernel.scene): they join two different objects of the same
image with types the relationship allows, and a symmetric relationship is kept once, lower index first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kernel.errors import CoreErrorCode, SceneError, at
from kernel.vocabulary import Vocabulary


def parse_relationships(
    raw: Any, vocabulary: Vocabulary, types: Sequence[str], index_of: dict[str, int], where: str
) -> frozenset[tuple[int, str, int]]:
    if not isinstance(raw, list):
        raise SceneError("relationships must be a list", where=at(where, "relationships"))
    # Scenes carry dozens of relationships each and fitting reads 100,000 scenes: a well-formed item
    # takes this fast path; any other goes through the detailed checks, which name what is wrong.
    allowed = vocabulary.relationship_pairs
    found: set[tuple[int, str, int]] = set()
    for i, item in enumerate(raw):
        try:
            subject, obj, predicate = index_of[item["subject"]], index_of[item["object"]], item["predicate"]
            symmetric, pairs = allowed[predicate]
            fast = subject != obj and (types[subject], types[obj]) in pairs
        except (KeyError, TypeError):
            fast = False
        if not fast:
            found.add(
                _checked_relationship(item, vocabulary, types, index_of, at(where, f"relationships[{i}]"))
            )
        elif symmetric and obj < subject:
            found.add((obj, predicate, subject))
        else:
            found.add((subject, predicate, obj))
    return frozenset(found)


def _checked_relationship(
    item: Any, vocabulary: Vocabulary, types: Sequence[str], index_of: dict[str, int], where: str
) -> tuple[int, str, int]:
    if not isinstance(item, dict):
        raise SceneError("a relationship is {subject, predicate, object}", where=where)
    subject, obj = (
        _object_ref(item.get(key), index_of, at(where, f"{key}")) for key in ("subject", "object")
    )
    return check_relationship(vocabulary, types, subject, item.get("predicate"), obj, where)


def _object_ref(value: Any, index_of: dict[str, int], where: str) -> int:
    if not isinstance(value, str) or value not in index_of:
        raise SceneError(
            f"no object with id {value!r} in this image", where=where, code=CoreErrorCode.UNKNOWN_OBJECT
        )
    return index_of[value]


def check_relationship(
    vocabulary: Vocabulary,
    types: Sequence[str],
    subject: int,
    predicate: Any,
    obj: int,
    where: str,
) -> tuple[int, str, int]:
    """Validate one relationship and return its stored form (symmetric ones with the lower index first)."""
    if predicate not in vocabulary.relationship_index:
        raise SceneError(
            f"unknown relationship {predicate!r}",
            where=at(where, "predicate"),
            code=CoreErrorCode.UNKNOWN_RELATIONSHIP,
        )
    if subject == obj:
        raise SceneError(
            "an object cannot be related to itself", where=where, code=CoreErrorCode.SELF_RELATIONSHIP
        )
    relationship = vocabulary.relationship(predicate)
    subject_type, object_type = types[subject], types[obj]
    if not relationship.allows(subject_type, object_type):
        raise SceneError(
            f"{predicate!r} does not relate a {subject_type} to a {object_type}",
            where=where,
            code=CoreErrorCode.RELATIONSHIP_NOT_ALLOWED,
        )
    if relationship.symmetric:
        subject, obj = min(subject, obj), max(subject, obj)
    return (subject, predicate, obj)
