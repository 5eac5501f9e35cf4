"""The answer path made cheap (docs/benchmarks.md, decision 0033) keeps its contract: the bodies are
exactly what the documented serializers make, a question shows nothing its serializer leaves out, the
lock's access check refuses every session the caller does not act for, and an answer costs four
queries."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.renderers import JSONRenderer

from accounts.roles import Role
from evaluation.api import serializers as s
from evaluation.services.systems import system_create, system_token_create
from tests.evaluation.conftest import shown_positions
from tests.evaluation.test_sessions import answer, enrol

pytestmark = pytest.mark.django_db


def through(serializer_class, body: dict) -> dict:
    """The body as the serializer would have made it from the same values."""
    return json.loads(JSONRenderer().render(serializer_class(body).data))


def test_every_body_of_a_whole_test_is_what_its_serializer_makes(published_test, system_token, token_client):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    labels_seen = 0
    for stream, step in shown_positions():
        question = client.get(f"/api/v1/evaluation/sessions/{session_id}/question/").json()
        assert question == through(s.SessionQuestionSerializer, question)
        body = answer(client, session_id, stream, step, "no").json()
        assert body == through(s.SessionAnswerSerializer, body)
        labels_seen += len((body["next"] or {}).get("labels", []))
        replay = answer(client, session_id, stream, step, "no").json()
        assert replay == body
    assert labels_seen > 0
    over = client.get(f"/api/v1/evaluation/sessions/{session_id}/question/").json()
    assert over == through(s.SessionQuestionSerializer, over) and over["current"] is None


def test_a_question_shows_only_what_its_serializer_documents(published_test, system_token, token_client):
    """What a stored question holds beyond the documented fields (here a note a truthing tool might
    leave) is never shown, in the question nor in the labels that repeat it."""
    from truthing.models import Step
    from truthing.published import plans_forget

    for step in Step.objects.filter(stream__test_image__test=published_test):
        step.question = {**step.question, "note": "SECRET-NOTE"}
        step.save(update_fields=["question"])
    plans_forget()
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    bodies = [client.get(f"/api/v1/evaluation/sessions/{session_id}/question/").content]
    for stream, step in shown_positions():
        bodies.append(answer(client, session_id, stream, step, "yes").content)
    assert not [body for body in bodies if b"SECRET-NOTE" in body]


def test_only_the_callers_own_sessions_can_be_answered(
    published_test, owner, system, token_client, make_user
):
    sibling = system_create(owner=owner, name="sibling")
    stranger = make_user(Role.VISION_SYSTEM_OWNER, username="stranger")
    theirs = system_create(owner=stranger, name="theirs")
    own_session = enrol(token_client(system_token_create(system=system, name="a")[1]), published_test)
    sibling_token = system_token_create(system=sibling, name="b")[1]
    stranger_token = system_token_create(system=theirs, name="c")[1]
    from accounts.services import token_create

    owner_token = token_create(user=owner, name="person")[1]
    stranger_person = token_create(user=stranger, name="person")[1]
    for secret in (sibling_token, stranger_token, stranger_person):
        refused = answer(token_client(secret), own_session, 0, 0, "yes")
        assert refused.status_code == 404 and refused.json()["code"] == "session_not_found"
    # Its owner, unscoped, acts for all their systems.
    assert answer(token_client(owner_token), own_session, 0, 0, "yes").status_code == 200


def test_an_answer_costs_four_queries(published_test, system_token, token_client):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    assert answer(client, session_id, 0, 0, "yes").status_code == 200  # the plan is built, the token used
    with CaptureQueriesContext(connection) as queries:
        assert answer(client, session_id, 0, 1, "yes").status_code == 200
    # The token with its user and roles; the session locked with its deadline and the access check; the
    # answer; the session's counts (the test's own transaction adds savepoints around them).
    made = [q["sql"].split()[0] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]
    assert made == ["SELECT", "SELECT", "INSERT", "UPDATE"]


def test_a_kept_question_is_what_the_serializer_makes_of_the_plan_in_any_order(published_test):
    """Built forward from whatever step is asked first (a session resumed midway), each kept body equals
    CurrentQuestionSerializer over the plan's step and its labels."""
    from evaluation.api.questions import question_shown
    from truthing.published import plan_of_test

    plan = plan_of_test(test_id=published_test.pk)
    for ordinal in [6, 2, 9, 0, 10, 1, 3, 4, 5, 7, 8]:
        step = plan.steps[ordinal]
        stream = plan.streams[step.stream_pos]
        url = f"/api/v1/evaluation/sessions/5/images/{stream.test_image_id}/"
        expected = {
            "stream": step.stream_pos,
            "streams": len(plan.streams),
            "step": step.step_pos,
            "image": {"id": stream.test_image_id, "width": stream.width, "height": stream.height, "url": url},
            "question": step.question,
            "text": step.text,
            "labels": labels_before(plan, step),
        }
        shown = question_shown(session_id=5, plan=plan, step=step)
        assert shown == through(s.CurrentQuestionSerializer, expected)
    assert [len(question_shown(session_id=5, plan=plan, step=st)["labels"]) for st in plan.steps] == [
        0, 0, 1, 1, 0, 0, 1, 1, 2, 0, 0
    ]  # fmt: skip


def labels_before(plan, step) -> list[dict]:
    """The labels instantiated in the step's stream before it, each with the question that defined it:
    written plainly here, against the incremental build of `evaluation.api.questions`."""
    stream = plan.streams[step.stream_pos]
    before = plan.steps[stream.first_ordinal : step.ordinal]
    return [
        {"label": s.label, "step": s.step_pos, "question": s.question, "text": s.text}
        for s in before
        if s.label
    ]


@pytest.mark.parametrize(
    "question",
    [
        {
            "kind": "exist",
            "type": "person",
            "attributes": [],
            "region": {"id": "left", "box": [0, 0, 32, 48]},
        },
        {
            "kind": "unique",
            "type": "vehicle",
            "attributes": ["parked"],
            "region": {"id": "3x3-r0c1", "box": [426.67, 0.0, 426.67, 320.0]},
            "excluding": ["vehicle 1", "vehicle 2"],
        },
        {"kind": "attr_or", "label": "person 2", "attributes": ["walking", "running"]},
        {"kind": "rel", "subject": "person 1", "relationship": "closer than", "object": "vehicle 1"},
        {"kind": "attr", "label": "person 1", "attributes": ["male"], "a key no serializer shows": 1},
    ],
)
def test_a_question_is_shown_as_the_serializer_shows_it(question):
    from evaluation.api.questions import plain_question

    assert plain_question(question) == through(s.QuestionSerializer, question)


@pytest.mark.parametrize(
    "given",
    [
        {"stream": 0, "step": 3, "answer": "yes"},
        {"stream": 2, "step": 0, "answer": "no", "p_yes": 0.25},
        {"stream": 2, "step": 0, "answer": "no", "p_yes": 0},
        {"stream": 2, "step": 0, "answer": "yes", "p_yes": 1},
        {"stream": 2, "step": 0, "answer": "yes", "p_yes": 0.5},
        {"stream": 2, "step": 0, "answer": "no", "p_yes": None},
        {"stream": 1000000, "step": 0, "answer": "no", "extra": "ignored"},
        {"stream": 1000001, "step": 0, "answer": "no"},
        {"stream": -1, "step": 0, "answer": "no"},
        {"stream": True, "step": 0, "answer": "no"},
        {"stream": "3", "step": 0, "answer": "no"},
        {"stream": 3.0, "step": 0, "answer": "no"},
        {"stream": 3, "step": 0, "answer": "Yes"},
        {"stream": 3, "step": 0, "answer": True},
        {"stream": 3, "answer": "yes"},
        {"stream": 3, "step": 0, "answer": "yes", "p_yes": 0.2},
        {"stream": 3, "step": 0, "answer": "yes", "p_yes": 1.5},
        {"stream": 3, "step": 0, "answer": "yes", "p_yes": "0.7"},
        {"stream": 3, "step": 0, "answer": "yes", "p_yes": True},
        {"stream": 3, "step": 0, "answer": "yes", "p_yes": float("nan")},
        {"stream": 3, "step": 0, "answer": "yes", "p_yes": float("inf")},
        ["not", "an", "object"],
    ],
)
def test_a_plain_answer_is_read_as_the_serializer_reads_it_and_anything_else_is_left_to_it(given):
    """The answer path reads a plainly given answer without the serializer (decision 0087): whatever it
    accepts, the serializer accepts with the same values; whatever else, the serializer decides."""
    from evaluation.api.serializers import SessionAnswerInputSerializer, answer_input_clean

    fast = answer_input_clean(given)
    serializer = SessionAnswerInputSerializer(data=given)
    if fast is not None:
        assert serializer.is_valid(), serializer.errors
        assert fast == dict(serializer.validated_data)
        assert [type(v) for v in fast.values()] == [type(v) for v in serializer.validated_data.values()]
    else:
        assert not serializer.is_valid() or type(given) is not dict or given.get("stream") in ("3", 3.0)
