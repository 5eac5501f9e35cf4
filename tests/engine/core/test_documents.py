"""Vocabulary, scene and question documents: validation with located errors, JSON form, English."""

from __future__ import annotations

import copy
import json

import pytest

from engine.core.story import parse_history
from kernel.errors import HistoryError, QuestionError, SceneError, VocabularyError
from kernel.kinds import Kind, question_from_json, question_to_json, render_text
from kernel.questions import Label, make_attribute, make_instantiation, make_relationship
from kernel.scene import parse_scene
from kernel.vocabulary import parse_vocabulary
from tests.engine.core.random_scenes import DEFAULT_VOCABULARY, default_vocabulary

V = default_vocabulary()
DOCUMENT = json.loads(DEFAULT_VOCABULARY.read_text())


def test_the_default_vocabulary_has_the_default_region_set():
    ids = [r.id for r in V.regions]
    assert ids[:5] == ["whole", "left", "right", "top", "bottom"]
    assert len(ids) == 5 + 4 + 9 + 16
    assert V.region("whole").contains(V.region("3x3-r1c1"))
    assert not V.region("left").intersects(V.region("right"))


def test_vocabulary_round_trips_through_its_document():
    assert parse_vocabulary(V.to_document()) == V


def mutated(change):
    document = copy.deepcopy(DOCUMENT)
    change(document)
    return document


@pytest.mark.parametrize(
    ("change", "where", "message"),
    [
        (
            lambda d: d["types"]["person"]["attribute_groups"][1]["values"].append("male"),
            "types.person.attribute_groups",
            "duplicate attribute value 'male'",
        ),
        (
            lambda d: d["relationships"][0].update(subject_types=["dog"]),
            "relationships[0].subject_types",
            "unknown object type 'dog'",
        ),
        (lambda d: d.update(types={}), "types", "at least one object type"),
        (
            lambda d: d["relationships"].append(dict(d["relationships"][0])),
            "relationships",
            "duplicate relationship 'talking'",
        ),
        (lambda d: d.update(regions=[{"id": "x", "box": [0.5, 0, 0.2, 1]}]), "regions[0].box", "x0 < x1"),
        (
            lambda d: d["types"]["person"]["attribute_groups"][0].update(exclusive="yes"),
            "types.person.attribute_groups[0].exclusive",
            "true or false",
        ),
    ],
)
def test_vocabulary_errors_name_the_place(change, where, message):
    with pytest.raises(VocabularyError) as error:
        parse_vocabulary(mutated(change))
    assert error.value.where == where
    assert message in error.value.message


SCENE = {
    "image": "s.png",
    "width": 100,
    "height": 80,
    "objects": [
        {"id": "p", "type": "person", "bbox": [5, 5, 20, 40], "attributes": ["male"]},
        {"id": "q", "type": "person", "bbox": [50, 5, 20, 40], "attributes": ["female"]},
    ],
    "relationships": [
        {"subject": "p", "predicate": "talking", "object": "q"},
        {"subject": "q", "predicate": "talking", "object": "p"},
    ],
}


def test_a_symmetric_relationship_given_both_ways_is_kept_once():
    scene = parse_scene(SCENE, V)
    assert scene.relationships == frozenset({(0, "talking", 1)})
    assert len(scene.to_document(V)["relationships"]) == 1


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda s: s["objects"][0].update(bbox=[200, 5, 20, 40]), "scene.objects[0].bbox"),
        (lambda s: s["objects"][0].update(bbox=[5, 5, 0, 40]), "scene.objects[0].bbox"),
        (lambda s: s["objects"][0].update(attributes=["male", "female"]), "scene.objects[0].attributes"),
        (lambda s: s["objects"][0].update(attributes=["car"]), "scene.objects[0].attributes"),
        (lambda s: s["objects"][0].update(attributes_known=False), "scene.objects[0].attributes"),
        (lambda s: s["objects"][1].update(id="p"), "scene.objects[1].id"),
        (
            lambda s: s["relationships"].append({"subject": "p", "predicate": "talking", "object": "p"}),
            "scene.relationships[2]",
        ),
        (
            lambda s: s["relationships"].append(
                {"subject": "p", "predicate": "driving or riding", "object": "q"}
            ),
            "scene.relationships[2]",
        ),
        (
            lambda s: s["relationships"].append({"subject": "p", "predicate": "talking", "object": "z"}),
            "scene.relationships[2].object",
        ),
        (lambda s: s.update(width=0), "scene.width"),
    ],
)
def test_scene_errors_name_the_place(change, where):
    document = copy.deepcopy(SCENE)
    change(document)
    with pytest.raises(SceneError) as error:
        parse_scene(document, V)
    assert error.value.where == where


def test_boxes_are_clipped_to_the_image():
    document = copy.deepcopy(SCENE)
    document["objects"][0]["bbox"] = [-10, 70, 30, 40]
    assert parse_scene(document, V).objects[0].bbox == (0.0, 70.0, 20.0, 10.0)


QUESTIONS = [
    make_instantiation(Kind.EXIST, "person", ["walking", "female"], "3x3-r0c1", V),
    make_instantiation(Kind.UNIQUE, "vehicle", [], "whole", V),
    make_attribute(Kind.ATTR_OR, Label("person", 2), ["running", "walking"], V),
    make_relationship(Label("person", 1), "closer than", Label("vehicle", 1), V),
]


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: q.kind)
def test_questions_round_trip_through_json(question):
    document = json.loads(json.dumps(question_to_json(question, V, 1280, 960)))
    assert question_from_json(document, V, 1280, 960) == question


def test_region_boxes_are_pixels_of_the_image():
    document = question_to_json(QUESTIONS[0], V, 1280, 960)
    assert document["region"]["id"] == "3x3-r0c1"
    assert document["region"]["box"] == pytest.approx([426.6667, 0.0, 426.6667, 320.0], abs=1e-3)
    assert document["attributes"] == ["female", "walking"]  # vocabulary order


def test_a_region_may_be_given_by_its_rounded_box_alone():
    question = question_from_json(
        {"kind": "exist", "type": "person", "attributes": [], "region": {"box": [426.67, 0, 426.67, 320]}},
        V,
        1280,
        960,
    )
    assert question.region == "3x3-r0c1"


@pytest.mark.parametrize(
    ("document", "where"),
    [
        ({"kind": "maybe"}, "question.kind"),
        ({"kind": "exist", "type": "cat", "region": "whole"}, "question.type"),
        (
            {"kind": "exist", "type": "person", "attributes": ["purple"], "region": "whole"},
            "question.attributes",
        ),
        ({"kind": "exist", "type": "person", "region": {"box": [1, 2, 3, 4]}}, "question.region.box"),
        ({"kind": "attr", "label": "person 1", "attributes": ["male", "female"]}, "question.attributes"),
        ({"kind": "attr", "label": "person one", "attributes": ["male"]}, "question.label"),
        (
            {"kind": "rel", "subject": "vehicle 1", "relationship": "talking", "object": "vehicle 2"},
            "question",
        ),
    ],
)
def test_bad_questions_name_the_place(document, where):
    with pytest.raises(QuestionError) as error:
        question_from_json(document, V, 640, 480)
    assert error.value.where == where


def test_a_history_may_not_name_a_label_before_its_instantiation():
    history = [{"question": {"kind": "attr", "label": "person 1", "attributes": ["male"]}, "answer": "yes"}]
    with pytest.raises(HistoryError) as error:
        parse_history(history, V, 640, 480)
    assert "person 1 has not been instantiated" in str(error.value)
    assert error.value.where == "history[0].question"


def test_english_renderings():
    texts = [render_text(q, V) for q in QUESTIONS]
    assert texts == [
        "Is there a person that is female and is walking in the designated region?",
        "Is there a unique vehicle in the designated region?",
        "Is person 2 walking or running?",
        "Is person 1 closer to the camera than vehicle 1?",
    ]
    assert render_text(make_attribute(Kind.ATTR_AND, Label("vehicle", 1), ["car", "parked"], V), V) == (
        "Is vehicle 1 a car and parked?"
    )
    assert render_text(make_attribute(Kind.ATTR, Label("vehicle", 1), ["one"], V), V) == (
        "Does vehicle 1 have exactly one visible tire?"
    )
    talking = make_relationship(Label("person", 2), "talking", Label("person", 1), V)
    assert render_text(talking, V) == "Are person 1 and person 2 talking?"


def test_a_box_inside_the_image_is_kept_exactly():
    document = copy.deepcopy(SCENE)
    document["objects"][0]["bbox"] = [12.3, 4.1, 50.1, 33.7]
    assert parse_scene(document, V).objects[0].bbox == (12.3, 4.1, 50.1, 33.7)


def test_an_instantiation_question_names_what_it_leaves_out():
    made = [Label("person", 1), Label("vehicle", 1), Label("person", 2)]
    unique = make_instantiation(Kind.UNIQUE, "person", ["female"], "left", V)
    assert question_to_json(unique, V, 640, 480, made)["excluding"] == ["person 1", "person 2"]
    assert render_text(unique, V, made) == (
        "Is there a unique person other than person 1 and person 2 that is female in the designated region?"
    )
    vehicle = make_instantiation(Kind.EXIST, "vehicle", [], "left", V)
    assert (
        render_text(vehicle, V, made) == "Is there a vehicle other than vehicle 1 in the designated region?"
    )
    assert question_to_json(vehicle, V, 640, 480)["excluding"] == []
    assert render_text(vehicle, V) == "Is there a vehicle in the designated region?"
    # The form with `excluding` parses back to the same question.
    assert question_from_json(question_to_json(unique, V, 640, 480, made), V, 640, 480) == unique


@pytest.mark.parametrize(
    ("excluding", "message"),
    [
        ("person 1", "excluding must be a list"),
        (["vehicle 1"], "vehicle 1 is not a person"),
        (["person 1", "person 1"], "a label is named twice"),
        (["person one"], "is not a label like"),
    ],
)
def test_a_bad_excluding_is_refused_where_it_is(excluding, message):
    document = {"kind": "exist", "type": "person", "attributes": [], "region": "left", "excluding": excluding}
    with pytest.raises(QuestionError) as error:
        question_from_json(document, V, 640, 480)
    assert message in str(error.value) and error.value.where.startswith("question.excluding")


def test_a_history_s_excluding_must_be_the_labels_it_made():
    unique = {"kind": "unique", "type": "person", "attributes": [], "region": "left", "excluding": []}
    again = {**unique, "excluding": []}  # after person 1 was made: it must leave person 1 out
    history = [{"question": unique, "answer": "yes"}, {"question": again, "answer": "no"}]
    with pytest.raises(HistoryError) as error:
        parse_history(history, V, 640, 480)
    assert "['person 1']" in str(error.value) and error.value.where == "history[1].question.excluding"
    history[1]["question"] = {**unique, "excluding": ["person 1"]}
    assert len(parse_history(history, V, 640, 480)) == 2


def test_a_question_stored_before_exclusions_were_named_is_spelled_out_as_now():
    from kernel.kinds import spelled_out

    question = make_instantiation(Kind.UNIQUE, "person", ["female"], "left", V)
    made = [Label("person", 1), Label("vehicle", 1)]
    old = {k: v for k, v in question_to_json(question, V, 640, 480).items() if k != "excluding"}
    document, text = spelled_out(old, render_text(question, V), [str(label) for label in made])
    assert document == question_to_json(question, V, 640, 480, made)
    assert text == render_text(question, V, made)
    attribute = {"kind": "attr", "label": "person 1", "attributes": ["male"]}
    assert spelled_out(attribute, "Is person 1 male?", ["person 1"]) == (attribute, "Is person 1 male?")
