"""The test-taking contract (docs/evaluation.md): enrol once, the current question with its image and
labels, answers with the truth and the next question, replays, conflicts, deadlines, voiding."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.roles import Role
from evaluation.models import Answer, Session, TestSchedule
from evaluation.services.sessions import answer_submit, session_enrol
from evaluation.services.systems import system_create
from tests.django_fixtures import run_task
from tests.evaluation.conftest import DEFAULT_STREAMS, build_test

pytestmark = pytest.mark.django_db

# The shown steps of DEFAULT_STREAMS: the rejected one is skipped.
SHOWN = [[(k, a) for k, a in stream if a != "ambiguous"] for stream in DEFAULT_STREAMS]


def enrol(client, test):
    response = client.post(f"/api/v1/evaluation/tests/{test.pk}/sessions/", {}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def answer(client, session_id, stream, step, value):
    return client.post(
        f"/api/v1/evaluation/sessions/{session_id}/answers/",
        {"stream": stream, "step": step, "answer": value},
        format="json",
    )


def test_a_system_takes_a_whole_test_in_order_and_learns_each_truth(
    published_test, system_token, token_client, django_capture_on_commit_callbacks
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    current = client.get(f"/api/v1/evaluation/sessions/{session_id}/question/").json()["current"]
    seen = []
    while current is not None:
        with django_capture_on_commit_callbacks(execute=True):
            response = answer(client, session_id, current["stream"], current["step"], "yes")
        seen.append((current["stream"], current["step"], current["question"]["kind"]))
        assert "ambiguous" not in current["text"]
        assert response.status_code == 200, response.content
        body = response.json()
        truth = SHOWN[current["stream"]][current["step"]][1]
        assert body["correct_answer"] == truth and body["correct"] == (truth == "yes")
        assert body["stream_ended"] == (current["step"] == len(SHOWN[current["stream"]]) - 1)
        current = body["next"]
    assert body["session_finished"] is True
    assert seen == [(i, j, kind) for i, stream in enumerate(SHOWN) for j, (kind, _) in enumerate(stream)]
    session = Session.objects.get(pk=session_id)
    assert session.state == "finished" and session.answered == sum(map(len, SHOWN))
    # The Celery task scored it when it ended (eager in the unit tests).
    assert session.score.accuracy == pytest.approx(7 / 11)
    question = client.get(f"/api/v1/evaluation/sessions/{session_id}/question/").json()
    assert question["current"] is None and question["state"] == "finished"


def test_labels_come_with_the_question_that_defined_them(published_test, system_token, token_client):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    for step, value in enumerate(["yes", "yes"]):
        body = answer(client, session_id, 0, step, value).json()
    assert body["label"] == "person 1"
    labels = body["next"]["labels"]
    assert [entry["label"] for entry in labels] == ["person 1"]
    assert labels[0]["question"]["kind"] == "unique" and labels[0]["question"]["region"]["box"]
    # The rejected step (truthing index 2) is skipped: the next shown step is step 2, truthing's index 3.
    assert body["next"]["step"] == 2 and body["next"]["text"] == "QTEXT-s0-i3-attr"


def test_the_same_answer_again_gets_the_same_response_a_different_one_a_409(
    published_test, system_token, token_client
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    first = answer(client, session_id, 0, 0, "no")
    again = answer(client, session_id, 0, 0, "no")
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json()
    conflict = answer(client, session_id, 0, 0, "yes")
    assert conflict.status_code == 409 and conflict.json()["code"] == "answer_conflict"
    assert list(Answer.objects.values_list("answer", flat=True)) == [False]


@pytest.mark.parametrize("where", [(0, 2), (1, 0), (0, 4), (0, 99), (7, 0)])
def test_an_answer_to_a_step_that_is_not_current_is_a_409_that_changes_nothing_and_tells_nothing(
    where, published_test, system_token, token_client
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    answer(client, session_id, 0, 0, "yes")
    response = answer(client, session_id, *where, "yes")
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "step_not_current"
    # Existing future steps and steps that do not exist are refused in the same words.
    assert body["message"] == (
        "Only the current question can be answered: the current question is stream 0, step 1. Nothing was stored."
    )
    assert Session.objects.get(pk=session_id).answered == 1


def test_a_session_is_never_restarted_and_owners_are_capped(published_test, owner, system, api, settings):
    settings.EVALUATION_MAX_SYSTEMS_PER_TEST = 2
    client = api.as_user(owner)
    url = f"/api/v1/evaluation/tests/{published_test.pk}/sessions/"
    assert client.post(url, {"system": system.pk}, format="json").status_code == 201
    again = client.post(url, {"system": system.pk}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "already_enrolled"
    second = system_create(owner=owner, name="second")
    assert client.post(url, {"system": second.pk}, format="json").status_code == 201
    third = system_create(owner=owner, name="third")
    capped = client.post(url, {"system": third.pk}, format="json")
    assert capped.status_code == 409 and capped.json()["code"] == "enrolment_limit"
    # The built-in baselines are not an owner's entries.
    baseline = system_create(owner=owner, name="baseline", baseline="always-yes")
    assert client.post(url, {"system": baseline.pk}, format="json").status_code == 201


def test_only_published_tests_can_be_taken(db, system_token, token_client):
    draft = build_test(state="truthing", name="not yet")
    response = token_client(system_token).post(
        f"/api/v1/evaluation/tests/{draft.pk}/sessions/", {}, format="json"
    )
    assert response.status_code == 404 and response.json()["code"] == "test_not_published"


def test_after_the_deadline_unanswered_questions_count_as_wrong_and_the_session_closes(
    published_test, system_token, token_client, django_capture_on_commit_callbacks
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    answer(client, session_id, 0, 0, "yes")  # right
    TestSchedule.objects.create(test=published_test, deadline=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        late = answer(client, session_id, 0, 1, "yes")
    assert late.status_code == 409 and late.json()["code"] == "session_over"
    session = Session.objects.get(pk=session_id)
    assert session.state == "expired"
    assert session.score.data["accuracy"]["successes"] == 1
    assert session.score.data["accuracy"]["trials"] == 11


def test_a_voided_session_stays_on_record_and_cannot_be_taken_again(
    published_test, system, users, api, owner
):
    session = Session.objects.create(system=system, test=published_test, total=11)
    admin = api.as_user(users[Role.ADMIN])
    response = admin.post(
        f"/api/v1/evaluation/sessions/{session.pk}/void/", {"reason": "leaked"}, format="json"
    )
    assert response.status_code == 200 and response.json()["state"] == "voided"
    session.refresh_from_db()
    assert session.void_reason == "leaked" and session.voided_by is not None
    again = api.as_user(owner).post(
        f"/api/v1/evaluation/tests/{published_test.pk}/sessions/", {"system": system.pk}, format="json"
    )
    assert again.json()["code"] == "already_enrolled"


def test_a_scoped_token_acts_only_as_its_system(published_test, owner, system, system_token, token_client):
    other = system_create(owner=owner, name="other")
    client = token_client(system_token)
    # Enrolling another system, even the owner's, is refused; it enrols its own whatever it says.
    created = client.post(
        f"/api/v1/evaluation/tests/{published_test.pk}/sessions/", {"system": other.pk}, format="json"
    )
    assert created.status_code == 201 and created.json()["system"] == system.pk
    assert client.get(f"/api/v1/evaluation/systems/{other.pk}/").status_code == 404
    assert [s["id"] for s in client.get("/api/v1/evaluation/systems/").json()["results"]] == [system.pk]
    # Outside its scope: tokens, other apps.
    assert client.get("/api/v1/tokens/").status_code == 403
    assert client.post("/api/v1/evaluation/systems/", {"name": "x"}, format="json").status_code == 403
    assert client.get("/api/v1/collections/").status_code == 403
    # The vocabulary is public to takers: the words of the questions (issue 20: it was refused).
    vocabularies = client.get("/api/v1/vocabularies/")
    assert vocabularies.status_code == 200 and vocabularies.json()["results"]
    first = vocabularies.json()["results"][0]["id"]
    assert "types" in client.get(f"/api/v1/vocabularies/{first}/").json()["document"]
    assert client.post("/api/v1/vocabularies/", {"name": "x"}, format="json").status_code == 403


def test_images_are_served_to_the_session_once_reached_and_to_nobody_else(
    published_test, system_token, token_client, make_user, api
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    current = client.get(f"/api/v1/evaluation/sessions/{session_id}/question/").json()["current"]
    response = client.get(current["image"]["url"])
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert b"".join(response.streaming_content)[:4] == b"\x89PNG"
    later = published_test.test_images.order_by("position").last().pk
    refused = client.get(f"/api/v1/evaluation/sessions/{session_id}/images/{later}/")
    assert refused.status_code == 404 and refused.json()["code"] == "image_not_available"
    stranger = api.as_user(make_user(Role.VISION_SYSTEM_OWNER, username="stranger"))
    assert stranger.get(current["image"]["url"]).status_code == 404


@pytest.mark.parametrize("accept", ["image/png", "image/*", "image/png, image/jpeg", "*/*", None])
def test_images_are_served_to_any_accept_header_that_takes_the_image(
    published_test, system_token, token_client, accept
):
    """The schema declares image/png and image/jpeg: a client asking for them gets the pixels (issue 20:
    they were a 406), and a refusal still comes in the one error shape."""
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    url = client.get(f"/api/v1/evaluation/sessions/{session_id}/question/").json()["current"]["image"]["url"]
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    response = client.get(url, **headers)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    later = published_test.test_images.order_by("position").last().pk
    refused = client.get(f"/api/v1/evaluation/sessions/{session_id}/images/{later}/", **headers)
    assert refused.status_code == 404 and refused["Content-Type"] == "application/json"
    assert refused.json()["code"] == "image_not_available"


def test_the_beat_closes_an_abandoned_session_at_the_deadline_and_it_joins_the_leaderboard(
    published_test, system, users, api, settings, django_capture_on_commit_callbacks
):
    """Nobody reads or answers the session after its deadline: the periodic task alone closes it."""
    from vtt_site.celery import app

    entry = app.conf.beat_schedule["sessions-expire"]
    assert entry["schedule"] == settings.EVALUATION_DEADLINE_SWEEP_SECONDS
    app.loader.import_default_modules()  # what a worker does when it starts: it finds the apps' tasks
    sweep = app.tasks[entry["task"]]
    session = session_enrol(system=system, test_id=published_test.pk)
    answer_submit(session_id=session.pk, stream=0, step=0, answer=True)  # right
    answer_submit(session_id=session.pk, stream=0, step=1, answer=False)  # wrong
    schedule = TestSchedule.objects.create(test=published_test, deadline=timezone.now() + timedelta(hours=1))
    assert run_task(sweep) == 0
    schedule.deadline = timezone.now() - timedelta(seconds=1)
    schedule.save()
    board_url = f"/api/v1/evaluation/tests/{published_test.pk}/leaderboard/"
    reader = api.as_user(users[Role.ANNOTATOR])
    assert reader.get(board_url).json()["rows"] == []
    assert Session.objects.get(pk=session.pk).state == "active"  # the deadline alone closes nothing

    with django_capture_on_commit_callbacks(execute=True):
        assert run_task(sweep) == 1
    session.refresh_from_db()
    assert session.state == "expired" and session.ended_at is not None
    # The 9 questions it never saw count as wrong: 1 right of 11.
    accuracy = session.score.data["accuracy"]
    assert (accuracy["successes"], accuracy["trials"]) == (1, 11)
    rows = reader.get(board_url).json()["rows"]
    assert [(row["system"]["name"], row["state"], row["accuracy"]["trials"]) for row in rows] == [
        ("my system", "expired", 11)
    ]
    # Stream by stream (shown to an annotator, who cannot enrol a system): unanswered count as wrong.
    page = reader.get(f"/api/v1/evaluation/systems/{system.pk}/scores/").json()
    assert [
        (r["stream"], r["questions"], r["answered"], r["correct"], r["first_mistake"])
        for r in page["sessions"][0]["streams"]
    ] == [(0, 4, 2, 1, 2), (1, 5, 0, 0, 1), (2, 2, 0, 0, 1)]
    # A second run finds nothing more to close.
    assert run_task(sweep) == 0


def test_a_session_whose_streams_are_being_prepared_is_told_to_wait_and_stores_nothing(
    published_test, system, system_token, token_client
):
    from truthing.models import Deal, DealtStream
    from truthing.published import plans_forget

    session = session_enrol(system=system, test_id=published_test.pk)
    # As if the deal's job had written none of its three streams yet.
    written = dict(DealtStream.objects.filter(deal_id=session.deal_id).values_list("pk", "stream_id"))
    DealtStream.objects.filter(deal_id=session.deal_id).update(stream=None)
    Deal.objects.filter(pk=session.deal_id).update(status="dealing", streams_total=3, streams_done=0)
    Session.objects.filter(pk=session.pk).update(total=0)
    plans_forget()
    api = token_client(system_token)
    response = api.get(f"/api/v1/evaluation/sessions/{session.pk}/question/")
    assert response.status_code == 409 and response.json()["code"] == "session_dealing"
    assert response["Retry-After"] == "2" and "0 of 3 ready" in response.json()["message"]
    answer = api.post(
        f"/api/v1/evaluation/sessions/{session.pk}/answers/",
        {"stream": 0, "step": 0, "answer": "yes"},
        format="json",
    )
    assert answer.status_code == 409 and not Answer.objects.filter(session=session).exists()
    assert api.get(f"/api/v1/evaluation/sessions/{session.pk}/").json()["ready"] is False
    # The first stream written: the session is takeable, its length still unknown.
    first = DealtStream.objects.get(deal_id=session.deal_id, position=0)
    DealtStream.objects.filter(pk=first.pk).update(stream_id=written[first.pk])
    assert api.get(f"/api/v1/evaluation/sessions/{session.pk}/").json()["ready"] is True
    current = api.get(f"/api/v1/evaluation/sessions/{session.pk}/question/").json()["current"]
    assert (current["stream"], current["step"], current["streams"]) == (0, 0, 3)
    assert Session.objects.get(pk=session.pk).total == 0
    # Dealt: its count of questions is recorded on the first read.
    for pk, stream_id in written.items():
        DealtStream.objects.filter(pk=pk).update(stream_id=stream_id)
    Deal.objects.filter(pk=session.deal_id).update(status="done")
    body = api.get(f"/api/v1/evaluation/sessions/{session.pk}/").json()
    assert body["ready"] is True
    assert api.get(f"/api/v1/evaluation/sessions/{session.pk}/question/").json()["current"]["stream"] == 0
    assert Session.objects.get(pk=session.pk).total == 11
