"""The reuse attacker (scoring.reuse): what it remembers and how it uses it, on hand-built streams."""

from __future__ import annotations

from scoring.reuse import Exposure, PlayedStream, ReuseAttacker, Seen, reuse_accuracy

BOX = {"id": "whole", "box": [0.0, 0.0, 64.0, 48.0]}
LEFT = {"id": "left", "box": [0.0, 0.0, 32.0, 48.0]}


def exist(kind="person", attributes=(), region=BOX):
    return {"kind": "exist", "type": kind, "attributes": list(attributes), "region": region}


def unique(kind="person", attributes=(), region=BOX):
    return {"kind": "unique", "type": kind, "attributes": list(attributes), "region": region}


def attr(label, *attributes, kind="attr"):
    return {"kind": kind, "label": label, "attributes": list(attributes)}


def test_the_same_stream_again_is_answered_entirely_from_memory():
    stream = PlayedStream(
        1,
        [
            (Seen(exist(), True), 0.5),
            (Seen(unique(), True, "person 1"), 0.5),
            (Seen(attr("person 1", "walking"), False), 0.6),
        ],
    )
    right, blind, total = reuse_accuracy([[stream]], [stream])
    assert (right, blind, total) == (3, 0, 3)  # the blind prior (p > 0.5: yes, yes, yes... no) gets none


def test_an_instantiation_fact_holds_in_another_history_while_no_label_of_its_type_is_made():
    attacker = ReuseAttacker()
    attacker.learn(1, [Seen(exist("vehicle"), False)], exist(region=LEFT), True)
    # Another history, no person labelled: the same question is the same fact about image 1...
    assert attacker.guess(1, [Seen(exist("vehicle", ["car"]), True)], exist(region=LEFT), 0.1) is True
    # ...but not about another image, nor once a person is labelled (the answer may differ then).
    assert attacker.guess(2, [], exist(region=LEFT), 0.1) is False
    labelled = [Seen(unique(), True, "person 1")]
    assert attacker.guess(1, labelled, exist(region=LEFT), 0.1) is False
    assert attacker.sources == {"memory": 1, "definition": 0, "prior": 2}


def test_a_label_is_known_by_its_defining_question_across_sessions():
    attacker = ReuseAttacker()
    made_left = Seen(unique(region=LEFT), True, "person 1")
    attacker.learn(1, [made_left], attr("person 1", "running"), True)
    # In another session the same object is person 2 (another person was labelled first, by a
    # question about the right half: the definitions differ, so it is not known)...
    other = [Seen(unique(attributes=["male"]), True, "person 1")]
    assert (
        attacker.guess(
            1, [*other, Seen(unique(region=LEFT), True, "person 2")], attr("person 2", "running"), 0.2
        )
        is False
    )
    # ...and with the same definition, under another label number of the same history shape, it is.
    assert attacker.guess(1, [Seen(exist(), True), made_left], attr("person 1", "running"), 0.2) is True
    # The defining question's own attributes are the object's.
    female = Seen(unique(attributes=["female"]), True, "person 1")
    assert attacker.guess(3, [female], attr("person 1", "female"), 0.1) is True
    assert attacker.guess(3, [female], attr("person 1", "female", "walking", kind="attr_or"), 0.1) is True
    assert attacker.guess(3, [female], attr("person 1", "female", "walking", kind="attr_and"), 0.1) is False


def rel(subject, relationship, obj):
    return {"kind": "rel", "subject": subject, "relationship": relationship, "object": obj}


def test_exposure_counts_the_earlier_streams_that_told_a_fact_and_is_what_the_attacker_answers_from():
    """Dealing avoids exposed facts (truthing.published.exposure): a question is exposed exactly when the attacker
    who saw the same earlier streams answers it from memory."""
    made_left = Seen(unique(region=LEFT), True, "person 1")
    first = [Seen(exist(region=LEFT), True), made_left, Seen(attr("person 1", "running"), False)]
    second = [Seen(exist(region=LEFT), True), Seen(exist("vehicle"), False)]
    exposure = Exposure.of_streams(1, [first, second])
    attacker = ReuseAttacker()
    for stream in (first, second):
        attacker.learn_stream(1, stream)

    other = [Seen(exist("vehicle", ["car"]), True), made_left]
    labelled_right = [Seen(unique(), True, "person 1")]
    asked = [
        ([], exist(region=LEFT), 2),  # told by both streams
        ([], exist("vehicle"), 1),
        ([], exist(), 0),
        (other, attr("person 1", "running"), 1),  # the same definition of person 1, another history
        (other, attr("person 1", "walking"), 0),
        (labelled_right, attr("person 1", "running"), 0),  # another definition: another object
        (labelled_right, exist(region=LEFT), 0),  # a person labelled: the fact may differ now
        (
            [*other, Seen(unique("vehicle"), True, "vehicle 1")],
            rel("person 1", "closer than", "vehicle 1"),
            0,
        ),
    ]
    for history, question, told in asked:
        assert exposure.after(history)(question) == told
        before = attacker.sources["memory"]
        attacker.guess(1, history, question, 0.5)
        assert (attacker.sources["memory"] > before) == (told > 0), question
