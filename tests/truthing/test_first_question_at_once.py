"""Issue 36, point 7: a session can be taken as soon as its first stream is dealt. The deal's job goes on
writing the rest ahead of the system, in the order fixed at enrolment; a system that catches up waits
with the same 409 `session_dealing` and Retry-After, and learns nothing it could not before (not the
number of questions, not the end of the test)."""

from __future__ import annotations

import threading

import pytest
from django.db import connections
from rest_framework.test import APIClient

from accounts.roles import Role
from evaluation.models import Session
from evaluation.services.systems import system_create, system_token_create
from truthing.models import Deal
from truthing.published import dealing, deals
from truthing.services import lifecycle

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def oracle_test(make_test, annotated_test_images):
    test = lifecycle.start_test(test=make_test(annotated_test_images, seed=5))
    return lifecycle.publish_test(test=test)


class HeldDeal:
    """The deal's job in a thread of its own, held after it has written its first stream until released."""

    def __init__(self, monkeypatch) -> None:
        self.first_written, self.release = threading.Event(), threading.Event()
        deal_one = dealing.deal_one

        def deal_one_then_wait(*args, **kwargs):
            written = deal_one(*args, **kwargs)  # committed: the session sees it
            if written and not self.first_written.is_set():
                self.first_written.set()
                assert self.release.wait(60), "the test never released the deal"
            return written

        monkeypatch.setattr(dealing, "deal_one", deal_one_then_wait)
        self.queued: list[int] = []
        monkeypatch.setattr(deals, "job_enqueue", lambda deal: self.queued.append(deal.pk))

    def start(self) -> None:
        def run() -> None:
            try:
                dealing.deal_run(job_id=self.queued[0])
            finally:
                connections.close_all()

        self.thread = threading.Thread(target=run)
        self.thread.start()
        assert self.first_written.wait(60), "the deal never wrote a stream"

    def finish(self) -> None:
        self.release.set()
        self.thread.join(60)


def test_the_first_stream_is_asked_while_the_rest_are_dealt(oracle_test, make_user, monkeypatch):
    held = HeldDeal(monkeypatch)
    owner = make_user(Role.VISION_SYSTEM_OWNER, username="ann")
    system = system_create(owner=owner, name="ann's")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {system_token_create(system=system, name='run')[1]}")
    enrolled = client.post(f"/api/v1/evaluation/tests/{oracle_test.pk}/sessions/", {}, format="json").json()
    session_id = enrolled["id"]
    question_url = f"/api/v1/evaluation/sessions/{session_id}/question/"
    assert client.get(question_url).status_code == 409  # nothing dealt yet

    held.start()
    images = oracle_test.test_images.count()
    body = client.get(question_url).json()
    current = body["current"]
    assert (current["stream"], current["step"], current["streams"]) == (0, 0, images)
    assert Deal.objects.get(pk=Session.objects.get(pk=session_id).deal_id).status == "dealing"
    while current is not None:  # the first stream, to its end
        response = client.post(
            f"/api/v1/evaluation/sessions/{session_id}/answers/",
            {"stream": current["stream"], "step": current["step"], "answer": "yes"},
            format="json",
        ).json()
        assert response["session_finished"] is False
        current = response["next"]
    assert response["stream_ended"] is True
    waiting = client.get(question_url)
    assert waiting.status_code == 409 and waiting.json()["code"] == "session_dealing"
    assert waiting["Retry-After"] == "2"
    session = Session.objects.get(pk=session_id)
    assert (session.state, session.total) == ("active", 0)  # the test's length is not told early

    held.finish()
    current = client.get(question_url).json()["current"]
    assert (current["stream"], current["step"]) == (1, 0)
    while current is not None:
        response = client.post(
            f"/api/v1/evaluation/sessions/{session_id}/answers/",
            {"stream": current["stream"], "step": current["step"], "answer": "no"},
            format="json",
        ).json()
        # The stream's next question, or another open stream's (decision 0085): several are open at once.
        current = response["next"] or client.get(question_url).json()["current"]
    assert response["session_finished"] is True
    session = Session.objects.get(pk=session_id)
    assert session.state == "finished" and session.total == session.answered
