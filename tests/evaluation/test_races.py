"""Eight clients post at once: the session row lock serialises them. The same answer is stored once and
every client gets the same response; conflicting answers store exactly one and the others get 409."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from evaluation.models import Answer, Session
from evaluation.services.sessions import session_enrol

CLIENTS = 8


def post_all(secret: str, session_id: int, answers: list[str]):
    barrier = threading.Barrier(len(answers))
    results: list = [None] * len(answers)

    def run(i: int) -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
        try:
            barrier.wait()
            response = client.post(
                f"/api/v1/evaluation/sessions/{session_id}/answers/",
                {"stream": 0, "step": 0, "answer": answers[i]},
                format="json",
            )
            results[i] = (answers[i], response.status_code, response.json())
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(answers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.django_db(transaction=True)
def test_the_same_answer_from_eight_clients_at_once_is_stored_once(published_test, system, system_token):
    session = session_enrol(system=system, test_id=published_test.pk)
    results = post_all(system_token, session.pk, ["yes"] * CLIENTS)
    assert [status for _, status, _ in results] == [200] * CLIENTS
    assert all(body == results[0][2] for _, _, body in results)
    assert Answer.objects.filter(session=session).count() == 1
    assert Session.objects.get(pk=session.pk).answered == 1


@pytest.mark.django_db(transaction=True)
def test_conflicting_answers_at_once_store_exactly_one_and_the_rest_get_409(
    published_test, system, system_token
):
    session = session_enrol(system=system, test_id=published_test.pk)
    results = post_all(system_token, session.pk, ["yes", "no"] * (CLIENTS // 2))
    stored = Answer.objects.get(session=session)
    winner = "yes" if stored.answer else "no"
    for given, status, body in results:
        if given == winner:
            assert status == 200 and body["answer"] == winner
        else:
            assert status == 409 and body["code"] == "answer_conflict"
    assert Session.objects.get(pk=session.pk).answered == 1
