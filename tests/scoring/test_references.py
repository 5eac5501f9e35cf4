"""Reference distance on a plan built by hand: the distances and bins are the hand-counted ones."""

from __future__ import annotations

import pytest

from scoring.references import reference_bin, reference_distances
from scoring.scores import score_of
from tests.scoring.test_scores import Plan, Step, Stream


def attr(label: str) -> dict:
    return {"kind": "attr", "label": label, "attributes": ["walking"]}


def rel(subject: str, object_: str) -> dict:
    return {"kind": "rel", "subject": subject, "relationship": "closer than", "object": object_}


# Stream 0: person 1 made at 1, person 2 at 3; attr p1 at 2 (1 back), attr p2 at 4 (1 back), rel p2-p1
# at 5 (the farther label, person 1, is 4 back). Stream 1: labels start again; vehicle 1 made at 0,
# attr about it at 7 (7 back).
PLAN = Plan(
    streams=(Stream(0, 0, 6), Stream(1, 6, 8)),
    steps=(
        Step(0, 0, "exist"),
        Step(1, 1, "unique", label="person 1"),
        Step(2, 2, "attr", attr("person 1")),
        Step(3, 3, "unique", label="person 2"),
        Step(4, 4, "attr", attr("person 2")),
        Step(5, 5, "rel", rel("person 2", "person 1")),
        Step(6, 0, "unique", label="vehicle 1"),
        *(Step(7 + i, 1 + i, "exist") for i in range(6)),
        Step(13, 7, "attr", attr("vehicle 1")),
    ),
)


def test_a_question_about_labels_is_as_far_as_its_oldest_label():
    assert reference_distances(PLAN) == {2: 1, 4: 1, 5: 4, 13: 7}


def test_a_label_of_another_stream_is_not_a_reference():
    plan = Plan(
        streams=(Stream(0, 0, 1), Stream(1, 1, 1)),
        steps=(Step(0, 0, "unique", label="person 1"), Step(1, 0, "attr", attr("person 1"))),
    )
    assert reference_distances(plan) == {}


@pytest.mark.parametrize(
    ("distance", "name"), [(1, "1"), (3, "3"), (4, "4-5"), (9, "6-9"), (19, "10-19"), (40, "20+")]
)
def test_bins(distance, name):
    assert reference_bin(distance) == name


def test_the_score_counts_accuracy_by_reference_distance_with_intervals():
    answers = {o: o != 4 for o in range(14)}  # wrong only on the attr 1 step back from person 2
    rows = score_of(plan=PLAN, answers=answers, over=True)["by_reference"]
    assert [(r["distance"], r["successes"], r["trials"]) for r in rows] == [
        ("1", 1, 2),
        ("4-5", 1, 1),
        ("6-9", 1, 1),
    ]
    assert rows[0]["low"] < 0.5 < rows[0]["high"]
