"""Issue 38, items 3 and 11: a checker takes an answer back as a stream's operator does, and an answer's
response carries the next question instead of leaving the page to ask for it."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.django_fixtures import proposals_later
from tests.truthing.test_quality import answer_check, stored, truth
from truthing.models import Check, CheckAnswer, Disagreement, Stream, StreamState
from truthing.selectors import work_view
from truthing.services import lifecycle
from truthing.services.adjudication import disagreement_decide
from truthing.services.checks import check_answer, check_undo
from truthing.services.proposals import stream_propose
from truthing.services.queue import operator_next

pytestmark = pytest.mark.django_db(transaction=True)


def client_of(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def checked_stream(settings, make_test, unannotated_test_images, operators):
    """An operator's ended stream and the check a second operator holds on it."""
    settings.TRUTHING_CHECK_SHARE = 1.0
    lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    first, checker = operators[:2]
    stream = operator_next(user=first)
    truth(first, stream, lambda step: "yes" if step.index == 0 else "no")
    check = operator_next(user=checker)
    assert isinstance(check, Check)
    return stream, check, checker


def test_a_checker_takes_back_an_answer_and_the_disagreement_it_opened(checked_stream):
    stream, check, checker = checked_stream
    check_answer(check_id=check.pk, user=checker, index=0, answer="no")  # disagrees: a disagreement opens
    assert Disagreement.objects.count() == 1
    check_undo(check_id=check.pk, user=checker)
    assert not CheckAnswer.objects.filter(check_pass=check).exists()
    assert not Disagreement.objects.exists(), "the disagreement goes with the answer that opened it"
    assert work_view(check)["pending"]["step"] == 0, "the same question waits again"
    check_answer(check_id=check.pk, user=checker, index=0, answer=stored(stream, 0))
    assert not Disagreement.objects.exists()


def test_a_finished_check_stays_held_for_its_undo_until_the_checker_takes_new_work(checked_stream, operators):
    stream, check, checker = checked_stream
    answer_check(checker, check, lambda pending: stored(stream, pending["step"]))
    check.refresh_from_db()
    assert check.finished_at is not None and check.lease_holder_id == checker.pk
    check_undo(check_id=check.pk, user=checker)
    check.refresh_from_db()
    assert check.finished_at is None, "taking the last answer back reopens the check"
    answer_check(checker, check, lambda pending: stored(stream, pending["step"]))
    assert operator_next(user=checker) is None  # nothing else is waiting: the finished check is let go
    check.refresh_from_db()
    assert check.lease_holder_id is None


def test_a_decided_answer_nothing_and_someone_elses_check_cannot_be_undone(checked_stream, operators, api):
    _stream, check, checker = checked_stream
    mine = client_of(checker)
    url = f"/api/v1/truthing/checks/{check.pk}/undo/"
    response = mine.post(url)
    assert response.status_code == 409 and response.json()["code"] == "nothing_to_undo"
    check_answer(check_id=check.pk, user=checker, index=0, answer="no")
    response = client_of(operators[2]).post(url)
    assert response.status_code == 409 and response.json()["code"] == "lease_not_held"
    disagreement = Disagreement.objects.get()
    disagreement_decide(disagreement_id=disagreement.pk, user=operators[2], answer="yes")
    response = mine.post(url)
    assert response.status_code == 409 and "decided" in response.json()["message"]
    assert CheckAnswer.objects.filter(check_pass=check).count() == 1


def test_undo_through_the_api_gives_the_check_back_as_the_page_reads_it(checked_stream):
    _stream, check, checker = checked_stream
    mine = client_of(checker)
    answered = mine.post(
        f"/api/v1/truthing/checks/{check.pk}/answer/", {"step": 0, "answer": "no"}, format="json"
    )
    assert answered.status_code == 200 and answered.json()["pending"]["step"] == 1
    undone = mine.post(f"/api/v1/truthing/checks/{check.pk}/undo/")
    assert undone.status_code == 200
    assert undone.json()["pending"]["step"] == 0 and undone.json()["progress"]["answered"] == 0


@pytest.fixture
def engine_in_another_thread(monkeypatch):
    """The proposal runs 0.3 s after the answer commits, in another thread, and wakes the answer."""
    with proposals_later(monkeypatch, 0.3, wake=True):
        yield


def test_the_answers_response_carries_the_next_question_proposed_in_another_thread(
    make_test, unannotated_test_images, operators, engine_in_another_thread
):
    lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    operator = operators[0]
    stream = operator_next(user=operator)
    stream_propose(stream_id=stream.pk)  # the first question
    response = client_of(operator).post(
        f"/api/v1/truthing/streams/{stream.pk}/answer/", {"step": 0, "answer": "no"}, format="json"
    )
    body = response.json()
    assert response.status_code == 200
    assert body["state"] == "pending" and body["pending"]["step"] == 1, body["state"]


def test_a_proposal_slower_than_the_wait_leaves_the_stream_proposing(
    settings, make_test, unannotated_test_images, operators, engine_in_another_thread
):
    settings.TRUTHING_ANSWER_WAIT_SECONDS = 0.05
    lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    operator = operators[0]
    stream = operator_next(user=operator)
    stream_propose(stream_id=stream.pk)
    response = client_of(operator).post(
        f"/api/v1/truthing/streams/{stream.pk}/answer/", {"step": 0, "answer": "no"}, format="json"
    )
    assert response.status_code == 200 and response.json()["state"] == "proposing"
    assert Stream.objects.get(pk=stream.pk).state in {StreamState.PROPOSING, StreamState.PENDING}
