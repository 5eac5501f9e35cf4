"""An image's agreement figures on a case worked by hand."""

from __future__ import annotations

import pytest

from crowd.consensus import ConsensusError, image_agreement, needs_review, summarise
from tests.crowd.consensus.helpers import box, version


def worked_case():
    """a and b find the same two people; c finds the first only and a third one of its own.
    Attributes on the first person: a {red}, b {}, c {red, tall}; on the second: a {tall}, b {tall}.
    a and b both say the first is near the second; c did not draw the second."""
    return [
        version("a", box("a1", 0, 0, "red"), box("a2", 50, 0, "tall"), relations=(("a1", "near", "a2"),)),
        version("b", box("b1", 1, 0), box("b2", 51, 0, "tall"), relations=(("b1", "near", "b2"),)),
        version("c", box("c1", 0, 1, "red", "tall"), box("c3", 200, 0)),
    ]


def test_the_figures_of_a_worked_case():
    agreement = image_agreement(worked_case())
    # pairs: a-b 2 of 2+2 -> 1.0; a-c 1 of 2+2 -> 0.5; b-c 1 of 2+2 -> 0.5
    assert agreement.box_f1 == pytest.approx(2 / 3)
    # the universe of person attributes in this image: {red, tall}. First person, red: a yes, b no, c yes
    # (1 agreeing pair of 3); tall: a no, b no, c yes (1 of 3). Second: red a-b no-no, tall yes-yes (2 of 2)
    assert agreement.attribute_agreement == pytest.approx(4 / 8)
    assert agreement.relationship_agreement == 1.0  # only a and b drew both: they agree
    assert agreement.n_annotators == 3
    assert agreement.lowest == pytest.approx(0.5)


def test_an_attribute_universe_counts_agreeing_absence_and_ticking_nothing_disagrees():
    versions = [version("a", box("a1", 0, 0, "red")), version("b", box("b1", 0))]
    assert image_agreement(versions).attribute_agreement == 0.0  # red: yes against no
    universe = {"person": frozenset({"red", "blue", "green", "tall"})}
    assert image_agreement(versions, attribute_universe=universe).attribute_agreement == 0.75


def test_nothing_to_compare_is_none_and_two_empty_versions_agree():
    alone = image_agreement([version("a", box("a1", 0, 0, "red"))])
    assert (alone.box_f1, alone.attribute_agreement, alone.relationship_agreement, alone.lowest) == (
        None,
    ) * 4
    empty = image_agreement([version("a"), version("b")])
    assert (empty.box_f1, empty.attribute_agreement) == (1.0, None)
    apart = image_agreement([version("a", box("a1", 0)), version("b", box("b1", 100))])
    assert apart.box_f1 == 0.0


def test_review_and_the_collections_summary():
    worked = image_agreement(worked_case())  # lowest 0.5
    alone = image_agreement([version("a", box("a1", 0))])
    assert needs_review(worked, 0.6) and not needs_review(worked, 0.5)
    assert needs_review(alone, 0.0)  # one annotator: a reviewer sees it, as today
    summary = summarise([worked, alone, image_agreement([version("a"), version("b")])])
    assert summary.images == 3
    assert summary.box_f1 == pytest.approx((2 / 3 + 1.0) / 2)  # the lone annotator has no box F1
    assert summary.attribute_agreement == pytest.approx(0.5)
    with pytest.raises(ConsensusError):
        needs_review(worked, 1.5)
