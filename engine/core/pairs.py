"""Ordered pairs of objects and their relationship bit masks, in arrays (engine.core.statistics).

A pair's mask holds the forward direction's relationship bits, then the reverse direction's shifted by
the number of relationships; the related pairs are kept sorted by subject then object.
"""

from __future__ import annotations

from array import array

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


def related_pairs(relationships: array[int], n_objects: int) -> tuple[I64, I64, U64]:
    """(subject, object, bits) for every related ordered pair, sorted by subject then object."""
    rel = np.frombuffer(relationships, dtype=np.int64).reshape(-1, 3)
    keys, inverse = np.unique(rel[:, 0] * n_objects + rel[:, 2], return_inverse=True)
    bits = np.zeros(len(keys), dtype=np.uint64)
    np.bitwise_or.at(bits, inverse.reshape(-1), np.left_shift(np.uint64(1), rel[:, 1].astype(np.uint64)))
    if n_objects == 0:
        return keys, keys.copy(), bits
    return keys // n_objects, keys % n_objects, bits


def ordered_pairs(image_start: I64) -> tuple[I64, I64]:
    """Every ordered pair of distinct objects of the same image, as two index arrays."""
    sizes = np.diff(image_start)
    per_object = np.repeat(sizes, sizes)  # each object pairs with every object of its image
    subjects = np.repeat(np.arange(int(image_start[-1]), dtype=np.int64), per_object)
    first_of_subject_image = np.repeat(np.repeat(image_start[:-1], sizes), per_object)
    run_start = np.repeat(np.cumsum(per_object) - per_object, per_object)
    objects = first_of_subject_image + (np.arange(len(subjects), dtype=np.int64) - run_start)
    distinct = subjects != objects
    return subjects[distinct], objects[distinct]


def pair_masks(
    rel_subject: I64,
    rel_object: I64,
    rel_bits: U64,
    n_relationships: int,
    subjects: I64,
    objects: I64,
    subject_start: I64 | None = None,
) -> U64:
    """Per ordered pair: the forward direction's bits, then the reverse direction's shifted by the number
    of relationships. `subject_start` (`FittedStatistics.rel_subject_start`), when given, says where each
    object's run starts; without it the runs are found by binary search."""
    forward = _related_bits(rel_object, rel_bits, *_runs(rel_subject, subjects, subject_start), objects)
    reverse = _related_bits(rel_object, rel_bits, *_runs(rel_subject, objects, subject_start), subjects)
    masks: U64 = forward | (reverse << np.uint64(n_relationships))
    return masks


def _runs(rel_subject: I64, subjects: I64, subject_start: I64 | None) -> tuple[I64, I64]:
    """Where each subject's run of related pairs starts and ends (the pairs are sorted by subject)."""
    if subject_start is not None:
        return subject_start[subjects], subject_start[subjects + 1]
    return (
        np.searchsorted(rel_subject, subjects, side="left"),
        np.searchsorted(rel_subject, subjects, side="right"),
    )


def _related_bits(rel_object: I64, rel_bits: U64, first: I64, end: I64, objects: I64) -> U64:
    """The relationship bits of each (subject, object) pair, 0 where they are not related, given each
    subject's run [first, end) of related pairs: walk the runs side by side (a subject relates to a few
    objects of its image), never touching the other pairs."""
    bits = np.zeros(len(objects), dtype=np.uint64)
    for step in range(int((end - first).max()) if len(objects) else 0):
        at = first + step
        inside = at < end
        at = np.where(inside, at, 0)
        found = inside & (rel_object[at] == objects)
        bits[found] = rel_bits[at[found]]
    return bits
