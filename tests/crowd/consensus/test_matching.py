"""Boxes matched across annotators: same label, IoU above the threshold, an optimal assignment."""

from __future__ import annotations

import pytest

from crowd.consensus import Box, ConsensusError, Relation, Version, iou, match_boxes, match_to_reference


def box(
    key: str, x: float, y: float, w: float = 10, h: float = 10, label: str = "person", *attributes: str
) -> Box:
    return Box(key, label, x, y, w, h, frozenset(attributes))


def test_iou_of_known_boxes():
    assert iou(box("a", 0, 0), box("b", 0, 0)) == 1.0
    assert iou(box("a", 0, 0), box("b", 5, 0)) == pytest.approx(50 / 150)
    assert iou(box("a", 0, 0), box("b", 10, 0)) == 0.0  # touching edges share no area


def test_matching_is_the_optimal_assignment_not_the_greedy_one():
    """b's box b1 joins a's a1 best (IoU with their median 0.95), but taking that pair first leaves b2
    with a2 alone (0.45, below the threshold); the optimal assignment pairs a1-b2 (0.67) and a2-b1
    (0.74), matching both. A box joins a cluster by its IoU with the median of the cluster and itself."""
    a = Version("a", (box("a1", 0, 0, 20, 10), box("a2", 7, 0, 20, 10)))
    b = Version("b", (box("b1", 1, 0, 20, 10), box("b2", -8, 0, 20, 10)))
    best = max(((x, y) for x in a.boxes for y in b.boxes), key=lambda pair: iou(*pair))
    assert (best[0].key, best[1].key) == ("a1", "b1")
    clusters = match_boxes([a, b])
    assert sorted(sorted(c.members.items()) for c in clusters) == [
        [("a", "a1"), ("b", "b2")],
        [("a", "a2"), ("b", "b1")],
    ]


def test_boxes_of_different_labels_or_below_the_threshold_never_match():
    a = Version("a", (box("a1", 0, 0), box("a2", 50, 0)))
    b = Version("b", (box("b1", 0, 0, 10, 10, "vehicle"), box("b2", 58, 0)))
    clusters = match_boxes([a, b])
    assert all(len(c.members) == 1 for c in clusters)
    assert len(clusters) == 4
    # a2 and b2 overlap by 0.11; b2 overlaps their median by 6/14 = 0.43
    assert len(match_boxes([a, b], iou_threshold=0.4)) == 3


def test_work_is_judged_against_a_reference_by_its_own_overlap():
    """Against gold or the truth there is no median: b2 overlaps a2 by 1/3, not enough at 0.5."""
    a = Version("a", (box("a1", 0, 0), box("a2", 50, 0)))
    b = Version("b", (box("b1", 1, 0), box("b2", 55, 0)))
    assert match_to_reference(a, b) == [("a1", "b1")]
    assert len([c for c in match_boxes([a, b]) if len(c.members) == 2]) == 2  # annotators: both


def test_three_annotators_make_one_cluster_per_object():
    versions = [
        Version(name, (box(f"{name}1", dx, 0), box(f"{name}2", 100 + dx, 0)))
        for name, dx in zip("abc", (0, 1, 2), strict=True)
    ]
    clusters = match_boxes(versions)
    assert [dict(c.members) for c in clusters] == [
        {"a": "a1", "b": "b1", "c": "c1"},
        {"a": "a2", "b": "b2", "c": "c2"},
    ]


@pytest.mark.parametrize(
    "make",
    [
        lambda: Box("a", "person", 0, 0, 0, 10),
        lambda: Box("a", "person", float("nan"), 0, 10, 10),
        lambda: Version("a", (box("k", 0, 0), box("k", 5, 5))),
        lambda: Version("a", (box("k", 0, 0),), (Relation("k", "near", "missing"),)),
        lambda: match_boxes([Version("a"), Version("a")]),
        lambda: match_boxes([Version("a")], iou_threshold=1.5),
    ],
)
def test_bad_input_is_refused_with_a_message(make):
    with pytest.raises(ConsensusError):
        make()
