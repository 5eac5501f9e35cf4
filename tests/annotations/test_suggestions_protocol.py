"""Label Studio's ML backend protocol without a server: the labeling configuration written from a
vocabulary, and a /predict answer read into boxes of the vocabulary (decision 0078). No Django: run
with `-p no:django`."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from annotations.suggestions.answers import AnswerRefused, read_answer
from annotations.suggestions.config import LABELS_NAME, choices_names, labeling_config
from kernel.vocabulary import parse_vocabulary

URBAN_STREET = Path(__file__).resolve().parents[2] / "annotations" / "vocabularies" / "urban-street.json"


def vocabulary_document(**changes) -> dict:
    return json.loads(URBAN_STREET.read_text()) | changes


VOCABULARY = parse_vocabulary(vocabulary_document())
W, H = 640, 480


def box(label="person", x=10.0, y=20.0, width=5.0, height=10.0, region="r1", **extra):
    value = {"x": x, "y": y, "width": width, "height": height, "rotation": 0, "rectanglelabels": [label]}
    return {
        "id": region,
        "from_name": "label",
        "to_name": "image",
        "type": "rectanglelabels",
        "value": value,
    } | extra


def choices(values, region="r1", from_name="person:sex"):
    return {
        "id": region,
        "from_name": from_name,
        "to_name": "image",
        "type": "choices",
        "value": {"choices": values},
    }


def answer(*results, **prediction):
    return {"results": [{"result": list(results), "score": 0.7, "model_version": "m1"} | prediction]}


def read(payload, task_id=5):
    return read_answer(payload, task_id=task_id, width=W, height=H, vocabulary=VOCABULARY, max_boxes=10)


# --- The labeling configuration ---------------------------------------------------------------------------


def test_the_config_has_the_types_as_rectangle_labels_and_each_group_as_choices_per_region():
    root = ElementTree.fromstring(labeling_config(VOCABULARY))
    assert root.find("Image").attrib == {"name": "image", "value": "$image"}
    labels = root.find("RectangleLabels")
    assert labels.get("name") == LABELS_NAME and labels.get("toName") == "image"
    assert [label.get("value") for label in labels] == [t.name for t in VOCABULARY.types]
    tags = {tag.get("name"): tag for tag in root.iter("Choices")}
    assert len(tags) == sum(len(t.groups) for t in VOCABULARY.types)
    sex, carrying = tags["person:sex"], tags["person:carrying"]
    assert sex.get("choice") == "single" and carrying.get("choice") == "multiple"
    assert sex.get("perRegion") == "true" and sex.get("whenLabelValue") == "person"
    assert [c.get("value") for c in sex] == ["male", "female"]
    # Two types with a group of the same name get two tags.
    assert tags["person:motion"] is not tags["vehicle:motion"]


def test_names_are_escaped_for_xml_and_stay_unique():
    document = vocabulary_document(
        types={
            'a "quoted" <type> & co': {
                "attribute_groups": [{"name": "x:y", "exclusive": True, "values": ["<1>", "2"]}]
            },
            'a "quoted" <type> & co:x': {
                "attribute_groups": [{"name": "y", "exclusive": False, "values": ["&"]}]
            },
        },
        relationships=[],
    )
    vocabulary = parse_vocabulary(document)
    root = ElementTree.fromstring(labeling_config(vocabulary))  # well-formed despite the names
    assert [label.get("value") for label in root.find("RectangleLabels")] == [
        t.name for t in vocabulary.types
    ]
    names = choices_names(vocabulary)
    assert len(names) == 2  # "type:x:y" twice, made unique
    assert {tag.get("name") for tag in root.iter("Choices")} == set(names)
    assert [c.get("value") for c in root.iter("Choice")] == ["<1>", "2", "&"]


# --- Reading an answer ------------------------------------------------------------------------------------


def test_a_box_in_percent_becomes_pixels_with_its_attributes_in_the_vocabulary_order():
    reading = read(
        answer(box(score=0.9), choices(["female"]), choices(["wearing a hat"], from_name="person:hat"))
    )
    assert reading.refused == [] and reading.model_version == "m1"
    [candidate] = reading.candidates
    assert candidate.type == "person" and candidate.score == 0.9
    assert candidate.box == pytest.approx((64.0, 96.0, 32.0, 48.0))
    assert candidate.attributes == ("female", "wearing a hat")


def test_a_box_without_its_own_score_takes_the_predictions():
    assert read(answer(box())).candidates[0].score == 0.7


def test_a_box_partly_outside_is_clipped_and_one_wholly_outside_is_refused():
    reading = read(answer(box(x=95, width=10, region="a"), box(x=101, width=5, region="b")))
    [clipped] = reading.candidates
    assert clipped.box[0] == pytest.approx(608.0) and clipped.box[2] == pytest.approx(32.0)
    assert [(r.region, r.reason) for r in reading.refused] == [("b", "the box lies outside the image")]


@pytest.mark.parametrize(
    ("region", "reason"),
    [
        (box(label="unicorn"), "the label 'unicorn' is not an object type of the vocabulary"),
        (box(width=0), "the box has no width or no height"),
        (box(height=-3), "the box has no width or no height"),
        (box(x="left"), "the box's x is not a number"),
        (box(x=float("nan")), "the box's x is not a number"),
        (box(rotation=30) | {"value": box()["value"] | {"rotation": 30}}, "rotated boxes are not read"),
        (
            box() | {"value": box()["value"] | {"rectanglelabels": ["person", "vehicle"]}},
            "a box must name exactly one label",
        ),
        (box(score=3), "the score is not a number from 0 to 1"),
        (box() | {"value": "big"}, "the box has no value"),
    ],
)
def test_a_bad_region_is_refused_with_its_reason_and_the_others_kept(region, reason):
    reading = read(answer(region, box(region="good")))
    assert [c.type for c in reading.candidates] == ["person"]
    assert [(r.region, r.reason) for r in reading.refused] == [("r1", reason)]


def test_attributes_must_be_of_the_boxes_type_and_one_per_exclusive_group():
    reading = read(
        answer(
            box(region="a"),
            choices(["parked"], region="a"),
            box(region="b"),
            choices(["male", "female"], region="b"),
            box(region="c"),
            choices("male", region="c"),
        )
    )
    assert reading.candidates == []
    assert [(r.region, r.reason) for r in reading.refused] == [
        ("a", "'parked' is not an attribute of a person"),
        ("b", "more than one value of the group 'sex', which takes one"),
        ("c", "its choices are not a list of attribute values"),
    ]


def test_what_is_not_read_is_listed_not_silently_dropped():
    polygon = {"id": "p", "type": "polygonlabels", "value": {"points": [[1, 2]], "polygonlabels": ["person"]}}
    reading = read(answer(polygon, choices(["male"], region="nobox"), {"type": "choices"}, 7, box(), box()))
    assert len(reading.candidates) == 1
    assert sorted(r.reason for r in reading.refused) == sorted(
        [
            "'polygonlabels' results are not read (rectanglelabels and choices are)",
            "choices for a region that has no box",
            "choices not tied to a box are not read",
            "not a region object",
            "a second box with the same id",
        ]
    )


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ("not json at all", "has no list of results"),
        ({"predictions": []}, "has no list of results"),
        ({"results": []}, "holds 0 predictions for the 1 task sent"),
        ({"results": [{"result": []}, {"result": []}]}, "holds 2 predictions for the 1 task sent"),
        ({"results": [{"result": [], "task": 6}]}, "for another task than the one sent"),
        ({"results": ["box"]}, "not an object with a result"),
        ({"results": [{"result": {"x": 1}}]}, "result is not a list"),
    ],
)
def test_an_answer_that_cannot_be_matched_to_the_task_is_refused_whole(payload, reason):
    with pytest.raises(AnswerRefused, match=reason):
        read(payload)


def test_a_prediction_that_names_its_task_rightly_is_read_and_a_list_of_predictions_gives_its_first():
    assert len(read({"results": [{"result": [box()], "task": 5}]}).candidates) == 1
    assert len(read({"results": [[{"result": [box()]}, {"result": []}]]}).candidates) == 1
    assert read({"results": [[]]}).candidates == []


def test_more_boxes_than_an_image_may_hold_refuse_the_answer():
    with pytest.raises(AnswerRefused, match="at most 10"):
        read(answer(*(box(region=f"r{i}") for i in range(11))))


def test_a_json_round_trip_of_a_realistic_answer_reads_the_same():
    """What a label-studio-ml backend's jsonify sends: floats, ints, extra keys it may add."""
    payload = json.loads(
        json.dumps(answer(box(x=0, y=0, width=100, height=100, original_width=W, readonly=False)))
    )
    assert read(payload).candidates[0].box == pytest.approx((0, 0, W, H))
