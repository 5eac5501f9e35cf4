"""The operator's point: with a yes to a uniqueness question they may click the object it singled out.
The point is stored with the step, shown with the label (to the operator, a checker, an adjudicator),
refused anywhere else, and goes when the answer goes (undo, an adjudication that changes it)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from truthing.models import Check, Disagreement, Step, StreamState
from truthing.selectors import work_view
from truthing.services import lifecycle
from truthing.services.adjudication import disagreement_decide
from truthing.services.checks import check_answer
from truthing.services.queue import operator_next
from truthing.services.streams import step_answer

pytestmark = pytest.mark.django_db(transaction=True)


def client_of(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def until_unique(user, stream) -> Step:
    """Answer (yes to existence, no to the rest) until a uniqueness question waits."""
    while True:
        stream.refresh_from_db()
        assert stream.state == StreamState.PENDING, "the stream ended before a uniqueness question"
        step = stream.steps.get(answer="")
        if step.question["kind"] == "unique":
            return step
        answer = "yes" if step.question["kind"] == "exist" else "no"
        step_answer(stream_id=stream.pk, user=user, index=step.index, answer=answer)


def test_a_yes_to_a_uniqueness_question_stores_the_point_and_the_label_shows_it(
    make_test, unannotated_test_images, operators
):
    lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    operator = operators[0]
    stream = operator_next(user=operator)
    api = client_of(operator)
    url = f"/api/v1/truthing/streams/{stream.pk}/answer/"
    first = stream.steps.get(answer="")
    if first.question["kind"] != "unique":
        # A point with any other question is refused, and nothing changes.
        response = api.post(url, {"step": first.index, "answer": "yes", "point": [10, 10]}, format="json")
        assert response.status_code == 400 and "point" in response.json()["fields"], response.json()
        assert not Step.objects.get(pk=first.pk).answer
    step = until_unique(operator, stream)
    width, height = stream.test_image.image.width, stream.test_image.image.height
    for bad in ([width + 1, 5], [5, height + 0.5], [5, -1], [1, 2, 3], ["x", 1]):
        response = api.post(url, {"step": step.index, "answer": "yes", "point": bad}, format="json")
        fields = response.json()["fields"]
        assert response.status_code == 400 and any(f.startswith("point") for f in fields), (bad, fields)
    response = api.post(url, {"step": step.index, "answer": "no", "point": [5, 5]}, format="json")
    assert response.status_code == 400, "a no singles out nothing"
    assert not Step.objects.get(pk=step.pk).answer, "the refusals changed nothing"

    response = api.post(url, {"step": step.index, "answer": "yes", "point": [123.5, 64.25]}, format="json")
    assert response.status_code == 200, response.json()
    step.refresh_from_db()
    assert step.label and step.point == [123.5, 64.25]
    body = api.get(f"/api/v1/truthing/streams/{stream.pk}/").json()
    (label,) = [entry for entry in body["labels"] if entry["label"] == step.label]
    assert label["point"] == [123.5, 64.25]
    # The history: every answered question, oldest first, with the label the unique yes made.
    assert [h["step"] for h in body["history"]] == list(range(step.index + 1))
    # Each with its structured question, whose region tells apart questions of the same English.
    assert body["history"][-1] == {
        "step": step.index,
        "question": step.question,
        "text": step.text,
        "answer": "yes",
        "label": step.label,
    }

    # Undo takes the point back with the answer.
    assert api.post(f"/api/v1/truthing/streams/{stream.pk}/undo/").status_code == 200
    step.refresh_from_db()
    assert step.answer == "" and step.label == "" and step.point is None


def test_a_checker_sees_the_point_and_an_adjudication_that_changes_the_answer_drops_it(
    settings, make_test, unannotated_test_images, operators
):
    settings.TRUTHING_CHECK_SHARE = 1.0
    lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    first, checker, reviewer = operators
    stream = operator_next(user=first)
    step = until_unique(first, stream)
    step_answer(stream_id=stream.pk, user=first, index=step.index, answer="yes", point=[40.0, 30.0])
    step.refresh_from_db()
    checked_label = False
    while (stream := stream.__class__.objects.get(pk=stream.pk)).state != StreamState.ENDED:
        pending = stream.steps.get(answer="")
        step_answer(stream_id=stream.pk, user=first, index=pending.index, answer="no")
    check = operator_next(user=checker)
    assert isinstance(check, Check)
    stored = dict(stream.steps.values_list("index", "answer"))
    while (view := work_view(check))["pending"] is not None:
        index = view["pending"]["step"]
        # The checker says no where the operator singled the object out, the same elsewhere.
        given = "no" if index == step.index else stored[index]
        check_answer(check_id=check.pk, user=checker, index=index, answer=given)
        if index == step.index + 1:
            # Past the marked question: the label, with the operator's point, is what later questions name.
            (label,) = [e for e in work_view(check)["labels"] if e["label"] == step.label]
            assert label["point"] == [40.0, 30.0]
            # The checker's history is their own answers, never the stored ones.
            assert [h["answer"] for h in work_view(check)["history"]][step.index] == "no"
            checked_label = True
    assert checked_label
    disagreement = Disagreement.objects.get(step=step)
    disagreement_decide(disagreement_id=disagreement.pk, user=reviewer, answer="no")
    step.refresh_from_db()
    assert step.answer == "no" and step.label == "" and step.point is None


def test_a_check_answer_carries_no_point(settings, make_test, unannotated_test_images, operators):
    settings.TRUTHING_CHECK_SHARE = 1.0
    lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    first, checker = operators[:2]
    stream = operator_next(user=first)
    while stream.state != StreamState.ENDED:
        pending = stream.steps.get(answer="")
        step_answer(stream_id=stream.pk, user=first, index=pending.index, answer="no")
        stream.refresh_from_db()
    check = operator_next(user=checker)
    response = client_of(checker).post(
        f"/api/v1/truthing/checks/{check.pk}/answer/",
        {"step": 0, "answer": "yes", "point": [1, 1]},
        format="json",
    )
    assert response.status_code == 400 and "point" in response.json()["fields"]
    assert not check.answers.exists()
