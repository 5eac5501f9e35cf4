"""The scene-graph record's partial attributes, flags and source identities (issue 37): what a record
may say, what it may not, and that a record reads back as it was written."""

from __future__ import annotations

import pytest

from kernel.errors import SceneError
from kernel.scene import parse_scene
from kernel.vocabulary import parse_vocabulary

VOCABULARY = parse_vocabulary(
    {
        "name": "v",
        "types": {
            "person": {
                "attribute_groups": [
                    {"name": "sex", "exclusive": True, "values": ["male", "female"]},
                    {"name": "carrying", "exclusive": False, "values": ["bag", "umbrella"]},
                ]
            }
        },
        "relationships": [],
    }
)


def record(**obj) -> dict:
    base = {"id": "o1", "type": "person", "bbox": [1, 1, 10, 10], "attributes": []}
    return {"image": "a.jpg", "width": 100, "height": 100, "objects": [base | obj], "relationships": []}


def test_a_partial_object_keeps_what_is_known_and_reads_back_the_same():
    document = record(
        attributes=["male", "bag"],
        attributes_known=False,
        unknown=["carrying"],
        flags=["occluded", "group"],
        source={"id": 1001, "names": ["Mann "], "synsets": ["man.n.01"], "label": "/m/04yx4"},
    ) | {"source_id": 2370799}
    scene = parse_scene(document, VOCABULARY)
    obj = scene.objects[0]
    assert (obj.attributes, obj.unknown_groups, obj.attributes_known) == (
        frozenset({"male", "bag"}),
        frozenset({"carrying"}),
        False,
    )
    assert not obj.in_tests  # a group box
    assert scene.source_id == "2370799"
    back = scene.to_document(VOCABULARY)
    assert back["objects"][0] == {
        "id": "o1",
        "type": "person",
        "bbox": [1.0, 1.0, 10.0, 10.0],
        "attributes": ["male", "bag"],
        "attributes_known": False,
        "unknown": ["carrying"],
        "flags": ["occluded", "group"],
        "source": {"id": "1001", "names": ["Mann "], "synsets": ["man.n.01"], "label": "/m/04yx4"},
    }
    assert parse_scene(back, VOCABULARY) == scene


def test_attributes_unknown_without_groups_named_means_every_group():
    obj = parse_scene(record(attributes_known=False), VOCABULARY).objects[0]
    assert obj.unknown_groups == {"sex", "carrying"}
    assert (
        "unknown"
        not in parse_scene(record(attributes_known=False), VOCABULARY).to_document(VOCABULARY)["objects"][0]
    )


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"unknown": ["tone"]}, "'tone' is not an attribute group of person"),
        ({"unknown": ["sex"]}, "attributes_known is true, yet some groups are unknown"),
        ({"attributes_known": False, "unknown": []}, "attributes_known is false, yet no group is unknown"),
        (
            {"attributes_known": False, "unknown": ["sex"], "attributes": ["male"]},
            "yet its group 'sex' is unknown",
        ),
        ({"unknown": "sex"}, "unknown must be a list"),
        ({"flags": ["blurry"]}, "'blurry' is not a flag"),
        ({"source": {"colour": "red"}}, "source has no 'colour'"),
        ({"source": {"names": "man"}}, "must be a list of at most 50 names"),
        ({"source": {"id": True}}, "must be a text or a whole number"),
        ({"source": {"label": "x" * 201}}, "at most 200 characters"),
    ],
)
def test_what_a_record_may_not_say(obj, message):
    with pytest.raises(SceneError, match=message):
        parse_scene(record(**obj), VOCABULARY)
