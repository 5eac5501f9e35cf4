"""Properties of the merge on random small crowds (hypothesis): what holds whatever the boxes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from crowd.consensus import Box, Relation, Version, image_agreement, match_boxes, merge_image

ATTRIBUTES = ("red", "tall", "hat")


@st.composite
def crowds(draw: st.DrawFn) -> list[Version]:
    """Two to four annotators, each drawing up to five boxes near a few objects on a small grid."""
    versions = []
    for name in draw(st.lists(st.sampled_from("abcd"), min_size=2, max_size=4, unique=True)):
        boxes = []
        for n in range(draw(st.integers(0, 5))):
            spot = draw(st.integers(0, 3))
            boxes.append(
                Box(
                    f"{name}{n}",
                    draw(st.sampled_from(("person", "vehicle"))),
                    spot * 30 + draw(st.integers(-3, 3)),
                    draw(st.integers(-3, 3)),
                    20,
                    20,
                    frozenset(draw(st.sets(st.sampled_from(ATTRIBUTES)))),
                )
            )
        keys = [b.key for b in boxes]
        pairs = (
            draw(st.lists(st.tuples(st.sampled_from(keys), st.sampled_from(keys)), max_size=3))
            if keys
            else []
        )
        relations = tuple(dict.fromkeys(Relation(s, "near", o) for s, o in pairs if s != o))
        versions.append(Version(name, tuple(boxes), relations))
    return versions


@settings(max_examples=60, deadline=None)
@given(crowds(), st.randoms(use_true_random=False))
def test_the_merge_does_not_depend_on_the_order_of_the_versions(versions, random):
    shuffled = list(versions)
    random.shuffle(shuffled)
    assert merge_image(shuffled) == merge_image(versions)


@settings(max_examples=60, deadline=None)
@given(crowds())
def test_clusters_hold_one_box_per_annotator_of_one_label_and_every_box_once(versions):
    clusters = match_boxes(versions)
    labels = {(v.annotator, b.key): b.label for v in versions for b in v.boxes}
    placed = [(name, key) for c in clusters for name, key in c.members.items()]
    assert sorted(placed) == sorted(labels)
    assert all(labels[(name, key)] == c.label for c in clusters for name, key in c.members.items())


@settings(max_examples=60, deadline=None)
@given(crowds(), st.integers(1, 4))
def test_a_merged_box_has_its_quorum_and_its_relations_name_merged_boxes(versions, quorum):
    quorum = min(quorum, len(versions))
    merge = merge_image(versions, quorum=quorum)
    keys = {b.key for b in merge.boxes}
    assert all(len(b.support) >= quorum and set(b.support) == set(b.sources) for b in merge.boxes)
    assert all(r.subject in keys and r.object in keys for r in merge.relations)
    figures = (
        merge.agreement.box_f1,
        merge.agreement.attribute_agreement,
        merge.agreement.relationship_agreement,
    )
    assert all(f is None or 0 <= f <= 1 for f in figures)


@settings(max_examples=40, deadline=None)
@given(crowds())
def test_annotators_who_drew_the_same_agree_fully_and_the_merge_is_their_version(versions):
    first = versions[0]
    copies = [Version(name, first.boxes, first.relations) for name in ("x", "y", "z")]
    agreement = image_agreement(copies)
    assert agreement.box_f1 == 1.0
    assert agreement.attribute_agreement in (1.0, None)
    merged = merge_image(copies)
    drawn = sorted((b.label, b.x, b.y, b.w, b.h, b.attributes) for b in first.boxes)
    assert sorted((b.label, b.x, b.y, b.w, b.h, b.attributes) for b in merged.boxes) == drawn
    assert len(merged.relations) == len(first.relations)
