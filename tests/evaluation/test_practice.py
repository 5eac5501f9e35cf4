"""Practice tests (issue 38, item 9; decision 0075): a system takes one again and again, one session at
a time, each dealt by the same mechanism as a scored session; never on a leaderboard, never against the
cap of systems per owner; its results shown to the owner as practice."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from accounts.roles import Role
from evaluation.models import Session
from evaluation.services.sessions import session_enrol
from evaluation.services.systems import system_create, system_token_create
from tests.evaluation.conftest import build_test, shown_positions, take_test
from truthing.services import lifecycle
from vtt_site.errors import ConflictError

pytestmark = pytest.mark.django_db


def practice_test(name: str = "practice run"):
    """A hand-built test (operator pools of one stream) published as a practice test."""
    return lifecycle.publish_test(test=build_test(name=name, state="truthing"), practice=True)


def finish(client, session_id: int) -> None:
    for stream, step in shown_positions():
        response = client.post(
            f"/api/v1/evaluation/sessions/{session_id}/answers/",
            {"stream": stream, "step": step, "answer": "yes"},
            format="json",
        )
        assert response.status_code == 200, response.content


def test_a_system_takes_a_practice_test_again_each_time_its_last_session_is_over(
    system, system_token, token_client
):
    test = practice_test()
    client = token_client(system_token)
    enrol = f"/api/v1/evaluation/tests/{test.pk}/sessions/"

    first = client.post(enrol, {}, format="json")
    assert first.status_code == 201, first.content
    assert first.json()["practice"] is True
    # One session at a time: while it is open, enrolling again points to it (the client resumes it).
    again = client.post(enrol, {}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "already_enrolled"
    assert f"session {first.json()['id']}" in again.json()["message"]

    finish(client, first.json()["id"])
    second = client.post(enrol, {}, format="json")
    assert second.status_code == 201, second.content
    finish(client, second.json()["id"])
    third = client.post(enrol, {}, format="json")
    assert third.status_code == 201, third.content

    sessions = list(Session.objects.filter(system=system, test_id=test.pk).order_by("pk"))
    assert [s.state for s in sessions] == ["finished", "finished", "active"]
    assert all(s.practice for s in sessions)
    # Each session was dealt its own deal, by the one dealing mechanism (truthing.published.deal_create).
    assert len({s.deal_id for s in sessions}) == 3 and None not in {s.deal_id for s in sessions}


def test_a_scored_test_is_still_taken_once(system, system_token, token_client):
    test = build_test(name="scored")
    client = token_client(system_token)
    enrol = f"/api/v1/evaluation/tests/{test.pk}/sessions/"
    session = client.post(enrol, {}, format="json").json()
    assert session["practice"] is False
    finish(client, session["id"])
    refused = client.post(enrol, {}, format="json")
    assert refused.status_code == 409 and refused.json()["code"] == "already_enrolled"


def test_practice_counts_against_no_cap_and_leaves_the_scored_cap_whole(owner, settings):
    settings.EVALUATION_MAX_SYSTEMS_PER_TEST = 1
    test, scored = practice_test(), build_test(name="scored")
    first, second = system_create(owner=owner, name="first"), system_create(owner=owner, name="second")
    for system in (first, second, first, second):  # two systems, twice each: over a cap of one
        assert take_test(system, test).practice
    assert Session.objects.filter(test_id=test.pk).count() == 4

    take_test(first, scored)
    with pytest.raises(ConflictError) as refused:
        session_enrol(system=second, test_id=scored.pk)
    assert refused.value.code == "enrolment_limit"


def test_the_database_keeps_one_open_practice_session_per_system_and_test(system):
    test = practice_test()
    open_session = session_enrol(system=system, test_id=test.pk)
    with pytest.raises(IntegrityError), transaction.atomic():
        Session.objects.create(system=system, test_id=test.pk, practice=True)
    Session.objects.filter(pk=open_session.pk).update(state="finished")
    Session.objects.create(system=system, test_id=test.pk, practice=True)


def test_a_practice_test_has_no_leaderboard_and_its_sessions_are_on_no_scores(
    client, owner, system, system_token, token_client
):
    test, scored = practice_test(), build_test(name="scored")
    take_test(system, test)
    take_test(system, scored)
    api = token_client(system_token)

    board = api.get(f"/api/v1/evaluation/tests/{test.pk}/leaderboard/")
    assert board.status_code == 404 and board.json()["code"] == "no_leaderboard"
    assert "practice test" in board.json()["message"]
    rows = api.get(f"/api/v1/evaluation/tests/{scored.pk}/leaderboard/").json()["rows"]
    assert [row["system"]["name"] for row in rows] == ["my system"]
    scores = api.get(f"/api/v1/evaluation/systems/{system.pk}/scores/").json()["sessions"]
    assert [entry["test"]["name"] for entry in scores] == ["scored"]
    listed = {t["name"]: t["practice"] for t in api.get("/api/v1/evaluation/tests/").json()["results"]}
    assert listed == {"practice run": True, "scored": False}

    client.force_login(owner)
    leaderboards = client.get("/leaderboards/").content.decode()
    assert "scored" in leaderboards and "practice run" not in leaderboards
    practice_board = client.get(f"/leaderboards/{test.pk}/")  # a page that says why there is none
    assert practice_board.status_code == 200 and "never on a leaderboard" in practice_board.content.decode()
    assert "my system" not in practice_board.content.decode().split("never on a leaderboard")[0]
    page = client.get(f"/systems/{system.pk}/").content.decode()
    practice_session = Session.objects.get(test_id=test.pk)
    assert f'data-session="{practice_session.pk}">practice run <span class="tag practice"' in page
    assert "(practice: not a score, never ranked)" in page


def test_an_owner_practising_is_told_there_is_no_practice_board_and_reads_the_scored_ones(
    make_user, owner, system, system_token, token_client
):
    test, scored = practice_test(), build_test(name="scored")
    rival = system_create(owner=make_user(Role.VISION_SYSTEM_OWNER, username="rival"), name="rival")
    take_test(rival, scored)
    session_enrol(system=system, test_id=test.pk)  # practising now
    # Not "shown once your session is over": a practice test has no leaderboard at all.
    practice_board = token_client(system_token).get(f"/api/v1/evaluation/tests/{test.pk}/leaderboard/")
    assert practice_board.status_code == 404 and practice_board.json()["code"] == "no_leaderboard"
    board = token_client(system_token).get(f"/api/v1/evaluation/tests/{scored.pk}/leaderboard/")
    assert board.status_code == 200, board.content
    assert [row["system"]["name"] for row in board.json()["rows"]] == ["rival"]
    other = system_token_create(system=system_create(owner=owner, name="idle"), name="t")[1]
    assert token_client(other).get(f"/api/v1/evaluation/tests/{scored.pk}/leaderboard/").status_code == 200
