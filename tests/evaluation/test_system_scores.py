"""What anyone may read of a vision system (GET /evaluation/systems/{id}/scores/, decision 0032): the
scores of its finished sessions; stream by stream only where that cannot help to take the test; nothing
of a session on a test the reader is taking; a private system is its owner's alone."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from evaluation.services.sessions import answer_submit, session_enrol, session_void
from evaluation.services.systems import system_token_create
from tests.evaluation.conftest import build_test, shown_positions, take_test

pytestmark = pytest.mark.django_db

# alpha answered yes everywhere (tests/evaluation/test_scores.py): per stream (stream, questions,
# answered, correct, 1-based first mistake).
STREAMS_ALL_YES = [(0, 4, 4, 2, 3), (1, 5, 5, 4, 1), (2, 2, 2, 1, 2)]


def scores_page(client, system, status: int = 200) -> dict:
    response = client.get(f"/api/v1/evaluation/systems/{system.pk}/scores/")
    assert response.status_code == status, response.content
    return response.json()


def by_test(client, system) -> dict[str, dict]:
    return {entry["test"]["name"]: entry for entry in scores_page(client, system)["sessions"]}


def streams(entry) -> list[tuple] | None:
    if entry["streams"] is None:
        return None
    return [
        (r["stream"], r["questions"], r["answered"], r["correct"], r["first_mistake"])
        for r in entry["streams"]
    ]


def viewer(name: str, world, users):
    return world["other_owner"] if name == "other owner" else users[Role(name)]


@pytest.mark.parametrize(
    "name, shown",
    [
        ("vision-system owner", True),  # alpha's own owner
        ("other owner", False),  # could enrol a system in the street test
        ("annotator", True),
        ("reviewer", True),
        ("operator", True),
        ("admin", True),
    ],
)
def test_on_a_published_test_streams_are_withheld_from_whoever_could_enrol_a_system(
    name, shown, scored_world, users, api
):
    entry = by_test(api.as_user(viewer(name, scored_world, users)), scored_world["alpha"])["street test"]
    # The scores themselves are there for everyone who may read the leaderboard.
    assert entry["state"] == "finished" and entry["test"]["state"] == "published"
    assert (entry["accuracy"]["successes"], entry["accuracy"]["trials"]) == (7, 11)
    assert entry["accuracy"]["low"] == pytest.approx(0.35380117450784887, abs=1e-12)
    assert set(entry["by_kind"]) == {"exist", "unique", "attr", "rel"}
    assert entry["first_mistake"]["mean"] == 2
    if shown:
        assert streams(entry) == STREAMS_ALL_YES and entry["streams_withheld"] == ""
        assert entry["streams"][0]["accuracy"]["value"] == 0.5
    else:
        assert streams(entry) is None
        assert entry["streams_withheld"].startswith("Stream-by-stream results on street test are shown")
        assert "once the test is archived" in entry["streams_withheld"]


@pytest.mark.parametrize("name", ["other owner", "annotator", "admin"])
def test_on_an_archived_test_streams_are_shown_to_everyone(name, scored_world, users, api):
    entry = by_test(api.as_user(viewer(name, scored_world, users)), scored_world["alpha"])["old test"]
    assert entry["test"]["state"] == "archived"
    assert streams(entry) == STREAMS_ALL_YES and entry["streams_withheld"] == ""


def test_a_token_scoped_to_a_system_could_enrol_it_even_when_its_owner_is_an_admin(
    scored_world, token_client
):
    for system in (scored_world["newcomer"], scored_world["baseline"]):  # the baseline is an admin's
        client = token_client(system_token_create(system=system, name="run")[1])
        tests = by_test(client, scored_world["alpha"])
        assert streams(tests["street test"]) is None
        assert streams(tests["old test"]) == STREAMS_ALL_YES


def test_a_system_taking_a_test_sees_no_other_systems_session_on_it(scored_world, api, token_client, users):
    world = scored_world
    published, newcomer = world["published"], world["newcomer"]
    session = session_enrol(system=newcomer, test_id=published.pk)
    answer_submit(session_id=session.pk, stream=0, step=0, answer=True)
    token = token_client(system_token_create(system=newcomer, name="run")[1])
    for client in (api.as_user(world["other_owner"]), token):
        for system in (world["alpha"], world["baseline"]):
            page = scores_page(client, system)
            assert "street test" not in [entry["test"]["name"] for entry in page["sessions"]]
            assert page["left_out"] == [{"id": published.pk, "name": "street test"}]
        assert [e["test"]["name"] for e in scores_page(client, world["alpha"])["sessions"]] == ["old test"]
        # As the test's leaderboard is refused.
        board = client.get(f"/api/v1/evaluation/tests/{published.pk}/leaderboard/")
        assert board.status_code == 409 and board.json()["code"] == "session_not_over"
    # Someone who is not taking it still sees it.
    annotator = api.as_user(users[Role.ANNOTATOR])
    assert "street test" in by_test(annotator, world["alpha"])
    assert scores_page(annotator, world["alpha"])["left_out"] == []
    # Once the newcomer's session is over, the session is shown again, its streams still withheld.
    for stream, step in shown_positions()[1:]:
        answer_submit(session_id=session.pk, stream=stream, step=step, answer=False)
    entry = by_test(token, world["alpha"])["street test"]
    assert streams(entry) is None and entry["accuracy"]["trials"] == 11


def test_a_private_system_is_its_owners_and_the_admins_only(scored_world, users, api, token_client):
    world = scored_world
    hidden = world["hidden"]
    for user in (world["other_owner"], users[Role.ANNOTATOR], users[Role.OPERATOR]):
        body = scores_page(api.as_user(user), hidden, status=404)
        assert body["code"] == "system_not_found" and body["fields"] == {}
        # Exactly like a system that does not exist.
        missing = api.as_user(user).get("/api/v1/evaluation/systems/999999/scores/").json()
        assert missing["code"] == body["code"]
    newcomer_token = token_client(system_token_create(system=world["newcomer"], name="run")[1])
    scores_page(newcomer_token, hidden, status=404)
    for user in (world["owner"], users[Role.ADMIN]):
        tests = by_test(api.as_user(user), hidden)
        assert streams(tests["street test"]) == STREAMS_ALL_YES


def test_a_private_baseline_is_shown_like_a_public_system(scored_world, users, api):
    page = scores_page(api.as_user(users[Role.ANNOTATOR]), scored_world["baseline"])
    assert page["system"]["baseline"] == "always-yes" and page["system"]["owner"] == "admin"
    assert [entry["test"]["name"] for entry in page["sessions"]] == ["street test"]


def test_active_and_voided_sessions_are_never_shown(scored_world, users, api):
    world = scored_world
    running = build_test(name="running test")
    session = session_enrol(system=world["alpha"], test_id=running.pk)
    answer_submit(session_id=session.pk, stream=0, step=0, answer=True)
    voided = take_test(world["alpha"], build_test(name="voided test"))
    session_void(session_id=voided.pk, by=users[Role.ADMIN], reason="leaked")
    for user in (world["other_owner"], users[Role.ANNOTATOR], world["owner"], users[Role.ADMIN]):
        assert set(by_test(api.as_user(user), world["alpha"])) == {"street test", "old test"}


def test_the_header_says_who_the_system_is(scored_world, users, api):
    page = scores_page(api.as_user(users[Role.ANNOTATOR]), scored_world["alpha"])
    assert page["system"] == {
        "id": scored_world["alpha"].pk,
        "name": "alpha",
        "description": "looks hard",
        "owner": "vision-system-owner",
        "url": "https://example.org/a",
        "public": True,
        "baseline": "",
        "shown": "image",
    }


def test_a_systems_page_costs_the_same_queries_for_two_sessions_or_four(scored_world, users, api):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = api.as_user(users[Role.ANNOTATOR])
    alpha = scored_world["alpha"]
    scores_page(client, alpha)  # the plans are cached, as they are after a process's first request
    with CaptureQueriesContext(connection) as two:
        assert len(scores_page(client, alpha)["sessions"]) == 2
    for name in ("third test", "fourth test"):
        take_test(alpha, build_test(name=name))
    scores_page(client, alpha)
    with CaptureQueriesContext(connection) as four:
        page = scores_page(client, alpha)
    assert all(entry["streams"] for entry in page["sessions"]) and len(page["sessions"]) == 4
    assert len(four.captured_queries) == len(two.captured_queries)
