"""The oracle on hand-made scenes: the semantics of docs/method.md sections 4 and 5."""

from __future__ import annotations

import pytest

from engine.core.oracle import answer, replay
from kernel.kinds import Kind
from kernel.prepared import Binding, PreparedScene
from kernel.questions import Answer, Label, make_attribute, make_instantiation, make_relationship
from kernel.scene import parse_scene
from tests.engine.core.random_scenes import default_vocabulary

V = default_vocabulary()

# A 400x200 image: two women on the left, a man and a car on the right, and a person of unknown
# attributes in the bottom-right corner.
SCENE = parse_scene(
    {
        "image": "hand.png",
        "width": 400,
        "height": 200,
        "objects": [
            {"id": "a", "type": "person", "bbox": [10, 10, 40, 80], "attributes": ["female", "walking"]},
            {"id": "b", "type": "person", "bbox": [100, 10, 40, 80], "attributes": ["female", "sitting"]},
            {"id": "c", "type": "person", "bbox": [250, 10, 40, 80], "attributes": ["male", "walking"]},
            {"id": "d", "type": "vehicle", "bbox": [300, 20, 80, 60], "attributes": ["car", "parked"]},
            {
                "id": "e",
                "type": "person",
                "bbox": [360, 150, 20, 40],
                "attributes": [],
                "attributes_known": False,
            },
        ],
        "relationships": [
            {"subject": "a", "predicate": "talking", "object": "b"},
            {"subject": "c", "predicate": "closer than", "object": "d"},
        ],
    },
    V,
)
PREPARED = PreparedScene.build(SCENE, V)


def ask(kind, type_name, attributes, region, binding=None):
    question = make_instantiation(kind, type_name, attributes, region, V)
    return answer(PREPARED, binding or Binding(), question)


@pytest.mark.parametrize(
    ("kind", "type_name", "attributes", "region", "expected"),
    [
        (Kind.EXIST, "person", [], "left", Answer.YES),
        (Kind.UNIQUE, "person", [], "left", Answer.NO),  # two people on the left
        (Kind.EXIST, "vehicle", [], "left", Answer.NO),
        (Kind.UNIQUE, "vehicle", [], "right", Answer.YES),
        (Kind.EXIST, "person", ["sitting"], "left", Answer.YES),
        (Kind.UNIQUE, "person", ["sitting"], "left", Answer.YES),
        # On the right only the man is known; the unknown person could be female: ambiguous.
        (Kind.EXIST, "person", ["female"], "right", Answer.AMBIGUOUS),
        # ...but the man is certainly walking, so there is a walking person there.
        (Kind.EXIST, "person", ["walking"], "right", Answer.YES),
        # One known walker and one unknown: unique cannot be decided.
        (Kind.UNIQUE, "person", ["walking"], "right", Answer.AMBIGUOUS),
        # Without attributes the unknown person is just a person: two people on the right.
        (Kind.UNIQUE, "person", [], "right", Answer.NO),
        (Kind.UNIQUE, "person", ["female"], "left", Answer.NO),  # two women
        (Kind.EXIST, "person", ["female", "sitting"], "4x4-r0c0", Answer.NO),  # b is not in that cell
    ],
)
def test_instantiation_answers(kind, type_name, attributes, region, expected):
    assert ask(kind, type_name, attributes, region)[0] == expected


def test_a_positive_uniqueness_answer_singles_out_the_object():
    given, singled_out = ask(Kind.UNIQUE, "person", ["sitting"], "left")
    assert given == Answer.YES and SCENE.objects[singled_out].id == "b"
    # In the whole image the person of unknown attributes might be sitting too.
    assert ask(Kind.UNIQUE, "person", ["sitting"], "whole") == (Answer.AMBIGUOUS, None)


def test_instantiated_objects_are_excluded():
    binding = Binding({Label("person", 1): 1})  # b
    assert ask(Kind.UNIQUE, "person", [], "left", binding)[0] == Answer.YES  # only a is left
    assert ask(Kind.EXIST, "person", ["sitting"], "left", binding)[0] == Answer.NO


def test_attribute_questions():
    binding = Binding({Label("person", 1): 0, Label("person", 2): 4})
    p1, p2 = Label("person", 1), Label("person", 2)
    assert answer(PREPARED, binding, make_attribute(Kind.ATTR, p1, ["walking"], V))[0] == Answer.YES
    assert (
        answer(PREPARED, binding, make_attribute(Kind.ATTR_AND, p1, ["walking", "male"], V))[0] == Answer.NO
    )
    assert (
        answer(PREPARED, binding, make_attribute(Kind.ATTR_OR, p1, ["running", "female"], V))[0] == Answer.YES
    )
    assert answer(PREPARED, binding, make_attribute(Kind.ATTR, p2, ["male"], V))[0] == Answer.AMBIGUOUS


def test_relationship_questions_respect_symmetry_and_order():
    binding = Binding(
        {Label("person", 1): 0, Label("person", 2): 1, Label("person", 3): 2, Label("vehicle", 1): 3}
    )
    talk = make_relationship(Label("person", 2), "talking", Label("person", 1), V)
    assert answer(PREPARED, binding, talk)[0] == Answer.YES
    closer = make_relationship(Label("person", 3), "closer than", Label("vehicle", 1), V)
    assert answer(PREPARED, binding, closer)[0] == Answer.YES
    further = make_relationship(Label("vehicle", 1), "closer than", Label("person", 3), V)
    assert answer(PREPARED, binding, further)[0] == Answer.NO


def test_replay_detects_a_contradiction_and_skips_rejected_entries():
    unique_sitting = make_instantiation(Kind.UNIQUE, "person", ["sitting"], "left", V)
    is_female = make_attribute(Kind.ATTR, Label("person", 1), ["female"], V)
    ok, binding = replay(PREPARED, [(unique_sitting, Answer.YES), (is_female, Answer.YES)])
    assert ok and binding.objects == {Label("person", 1): 1}
    assert not replay(PREPARED, [(unique_sitting, Answer.YES), (is_female, Answer.NO)])[0]
    assert replay(PREPARED, [(unique_sitting, Answer.YES), (is_female, Answer.AMBIGUOUS)])[0]


def test_min_overlap_changes_what_is_visible():
    # Box a spans x 10..50; a region starting at x=40 holds a quarter of its area.
    scene = parse_scene(
        {
            "image": "o",
            "width": 100,
            "height": 100,
            "objects": [{"id": "a", "type": "person", "bbox": [10, 0, 40, 100], "attributes": []}],
        },
        V,
    )
    question = make_instantiation(Kind.EXIST, "person", [], "3x3-r0c1", V)  # x from 33.3
    loose = PreparedScene.build(scene, V, min_overlap=0.0)
    strict = PreparedScene.build(scene, V, min_overlap=0.5)
    assert answer(loose, Binding(), question)[0] == Answer.YES
    assert answer(strict, Binding(), question)[0] == Answer.NO
