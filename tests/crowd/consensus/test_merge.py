"""The merge: a quorum keeps a box, at the median of its boxes; attributes and relationships by a vote."""

from __future__ import annotations

from pathlib import Path

import pytest

from crowd.consensus import Box, ConsensusError, Reliability, Version, merge_image, rules_of, vote
from kernel.vocabulary import load_vocabulary
from tests.crowd.consensus.helpers import box, version


def three_with_a_lone_box():
    """Three annotators agree on one person; only c draws a second one."""
    return [
        version("a", box("a1", 0)),
        version("b", box("b1", 1)),
        version("c", box("c1", 2), box("c2", 100)),
    ]


def test_a_box_is_kept_by_a_strict_majority_by_default_and_by_the_quorum_asked():
    merge = merge_image(three_with_a_lone_box())
    assert [b.support for b in merge.boxes] == [("a", "b", "c")]
    assert len(merge_image(three_with_a_lone_box(), quorum=1).boxes) == 2
    two_of_three = [version("a", box("a1", 0)), version("b", box("b1", 1)), version("c")]
    assert len(merge_image(two_of_three).boxes) == 1
    assert merge_image(two_of_three, quorum=3).boxes == ()
    # with two annotators a strict majority is both
    assert merge_image([version("a", box("a1", 0)), version("b")]).boxes == ()


def test_a_dropped_box_is_a_disagreement_saying_who_found_it():
    merge = merge_image(three_with_a_lone_box())
    (dropped,) = [d for d in merge.disagreements if d.kind == "box"]
    assert (dropped.box, dropped.yes, dropped.no, dropped.decided) == (None, ("c",), ("a", "b"), False)
    assert dropped.sources == {"c": "c2"}


def test_the_merged_box_is_the_coordinate_wise_median_not_the_mean():
    versions = [
        version("a", box("a1", 0, 0, w=100, h=200)),
        version("b", box("b1", 2, 2, w=104, h=200)),
        version("c", box("c1", 10, 12, w=102, h=230)),
    ]
    (merged,) = merge_image(versions).boxes
    assert (merged.x, merged.y, merged.w, merged.h) == (2, 2, 102, 200)  # the means: 4, 4.67, 102, 210
    assert merged.sources == {"a": "a1", "b": "b1", "c": "c1"}


def test_attributes_and_relations_by_majority():
    versions = [
        version("a", box("a1", 0, 0, "red"), box("a2", 50), relations=(("a1", "near", "a2"),)),
        version("b", box("b1", 0, 0, "red", "big"), box("b2", 50), relations=(("b1", "near", "b2"),)),
        version("c", box("c1", 0, 0, "big"), box("c2", 50)),
    ]
    merge = merge_image(versions)
    assert merge.boxes[0].attributes == frozenset({"red", "big"})
    assert [(r.subject, r.predicate, r.object) for r in merge.relations] == [("m1", "near", "m2")]
    split = {(d.kind, d.name): (d.yes, d.no) for d in merge.disagreements}
    assert split == {
        ("attribute", "red"): (("a", "b"), ("c",)),
        ("attribute", "big"): (("b", "c"), ("a",)),
        ("relation", "near"): (("a", "b"), ("c",)),
    }


def test_a_symmetric_relation_stated_either_way_is_one_relation():
    versions = [
        version("a", box("a1", 0), box("a2", 50), relations=(("a1", "talking", "a2"),)),
        version("b", box("b1", 0), box("b2", 50), relations=(("b2", "talking", "b1"),)),
    ]
    assert merge_image(versions).relations == ()  # two ordered pairs, one vote each: no majority
    assert len(merge_image(versions, symmetric=frozenset({"talking"})).relations) == 1


def test_an_exclusive_group_keeps_exactly_one_value():
    versions = [
        version("a", box("a1", 0, 0, "walking")),
        version("b", box("b1", 0, 0, "running")),
        version("c", box("c1", 0, 0, "running", "walking")),
    ]
    groups = {"person": [frozenset({"walking", "running", "sitting"})]}
    assert merge_image(versions).boxes[0].attributes == {"walking", "running"}
    assert merge_image(versions, exclusive=groups).boxes[0].attributes == {"running"}  # a tie: name order


def test_an_annotator_who_could_not_tell_the_attributes_abstains():
    unknown = Version("c", (Box("c1", "person", 0, 0, 10, 10, attributes_known=False),))
    versions = [version("a", box("a1", 0, 0, "red")), version("b", box("b1", 0)), unknown]
    merge = merge_image(versions)
    (split,) = [d for d in merge.disagreements if d.kind == "attribute"]
    assert (split.yes, split.no) == (("a",), ("b",))
    assert merge.boxes[0].attributes == frozenset()  # a tie decides no


def test_a_weighted_vote_overturns_a_majority_of_unreliable_annotators():
    weights = {
        "careless1": Reliability(0.55, 0.55, 500, True),
        "careless2": Reliability(0.55, 0.55, 500, True),
        "careful": Reliability(0.95, 0.95, 500, True),
    }
    votes = {"careless1": True, "careless2": True, "careful": False}
    assert vote(votes) is True
    assert vote(votes, weights) is False
    versions = [
        version("careless1", box("x1", 0, 0, "red")),
        version("careless2", box("y1", 0, 0, "red")),
        version("careful", box("z1", 0)),
    ]
    assert merge_image(versions).boxes[0].attributes == {"red"}
    assert merge_image(versions, weights=weights).boxes[0].attributes == frozenset()


def test_annotators_without_enough_work_weigh_as_the_average_and_alone_as_a_majority():
    votes = {"new1": True, "new2": True, "careful": False}
    few = Reliability(0.99, 0.99, 3, False)
    # the newcomers weigh as the average trusted annotator (here the careful one): two against one
    assert vote(votes, {"careful": Reliability(0.95, 0.95, 500, True), "new1": few}) is True
    # nobody has enough work: a plain majority, whatever the estimates say
    assert vote({"a": True, "b": False, "c": False}, {"a": few}) is False


def test_a_quorum_out_of_range_is_refused():
    with pytest.raises(ConsensusError, match="quorum"):
        merge_image(three_with_a_lone_box(), quorum=4)
    with pytest.raises(ConsensusError, match="quorum"):
        merge_image(three_with_a_lone_box(), quorum=0)


def test_the_rules_of_the_street_vocabulary():
    street = load_vocabulary(
        Path(__file__).resolve().parents[3] / "annotations" / "vocabularies" / "urban-street.json"
    )
    rules = rules_of(street)
    assert {"male", "female", "wearing a hat"} <= rules.attribute_universe["person"]
    assert frozenset({"male", "female"}) in rules.exclusive["person"]
    assert not any("wearing a hat" in group for group in rules.exclusive["person"])
    assert "talking" in rules.symmetric and "closer than" not in rules.symmetric
