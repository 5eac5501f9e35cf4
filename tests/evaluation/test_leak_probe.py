"""The leak probe: a system midway through its session calls every operation of the API schema with its
own token, on every object id it could name, and no response (body or headers) holds a question before
its turn, the answer to a question it has not answered, another session's data, an annotation or where an
operator clicked a label's object."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from accounts.roles import Role
from evaluation.conf import conf as evaluation_conf
from evaluation.services.sessions import answer_submit, session_enrol
from evaluation.services.systems import system_create
from tests.evaluation.conftest import DEFAULT_STREAMS, POINT, build_test

pytestmark = pytest.mark.django_db

ANSWERED = 2  # stream 0, steps 0 and 1 (shown positions); the current one is stream 0, step 2


def schema_operations() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (path, method.upper())
        for path, item in schema["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    ]


@pytest.fixture
def probe_world(owner, system, system_token, make_user, django_capture_on_commit_callbacks):
    test = build_test()
    session = session_enrol(system=system, test_id=test.pk)
    for step in range(ANSWERED):
        answer_submit(session_id=session.pk, stream=0, step=step, answer=True)
    # A rival of another owner who finished the test, and another system of the same owner on it.
    rival_owner = make_user(Role.VISION_SYSTEM_OWNER, username="rival-owner")
    rival = system_create(owner=rival_owner, name="RIVAL-SYSTEM-NAME", public=True)
    sibling = system_create(owner=owner, name="SIBLING-SYSTEM-NAME")
    others = []
    for other in (rival, sibling):
        other_session = session_enrol(system=other, test_id=test.pk)
        with django_capture_on_commit_callbacks(execute=True):
            for ordinal in range(other_session.total if other is rival else 1):
                stream, step = position(ordinal)
                answer_submit(session_id=other_session.pk, stream=stream, step=step, answer=False)
        others.append(other_session)
    return {"test": test, "session": session, "others": others, "systems": [system, rival, sibling]}


def position(ordinal: int) -> tuple[int, int]:
    shown = [[a for _, a in stream if a != "ambiguous"] for stream in DEFAULT_STREAMS]
    for i, stream in enumerate(shown):
        if ordinal < len(stream):
            return i, ordinal
        ordinal -= len(stream)
    raise IndexError


def forbidden_strings(world) -> list[str]:
    """Texts of every question after the current one, every image's stored name, the other systems."""
    current_text = "QTEXT-s0-i3-attr"  # truthing index 3 is shown position 2 (index 2 was rejected)
    texts = [
        f"QTEXT-s{s}-i{i}-{kind}"
        for s, stream in enumerate(DEFAULT_STREAMS)
        for i, (kind, _) in enumerate(stream)
    ]
    future = texts[texts.index(current_text) + 1 :]
    rejected = ["QTEXT-s0-i2-attr"]
    return [
        *future,
        *rejected,
        "secret-name-",
        "RIVAL-SYSTEM-NAME",
        "SIBLING-SYSTEM-NAME",
        "bbox",
        "ambiguous",
        # The operator's point on a label's object: neither the key nor its numbers.
        '"point',
        *(f"{value:g}" for value in POINT),
    ]


def fill(path: str, values: dict[str, Any]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), 1)), path)


def bodies(path: str, world) -> list[dict]:
    if path.endswith("/answers/"):
        # The current step with either answer would be a real answer; the probe answers only steps that
        # are not current, and an answered one with a different answer.
        return [
            {"stream": 0, "step": 3, "answer": "yes"},
            {"stream": 1, "step": 0, "answer": "no"},
            {"stream": 0, "step": 0, "answer": "no"},
            {"stream": 0, "step": 40, "answer": "yes"},
        ]
    return [{}, {"system": world["systems"][1].pk, "name": "probe", "reason": "probe"}]


# The header of a system's public scores page: what anyone may read of any public system.
PUBLIC_HEADER = {"id", "name", "description", "owner", "url", "public", "baseline", "shown"}


def check(response, world, where: str, image_allowed: bool = False, system_page: int | None = None) -> None:
    """`system_page`: the response is the public scores page of that system, which names it in its
    header (a public system's name is not a session's data); everything else in it is checked as usual,
    the system's name included."""
    content = b"".join(response.streaming_content) if response.streaming else response.content
    headers = json.dumps(dict(response.items()))
    if response.get("Content-Type", "").startswith("image/"):
        assert image_allowed, f"{where}: served an image the session has not reached"
        return
    body = json.loads(content) if content[:1] in (b"{", b"[") else None
    if system_page is not None and response.status_code == 200:
        header = body.pop("system")
        assert set(header) == PUBLIC_HEADER and header["id"] == system_page, f"{where}: header {header}"
        content = json.dumps(body).encode()
    text = content.decode(errors="replace") + headers
    for bad in forbidden_strings(world):
        assert bad not in text, f"{where}: response holds {bad!r}: {text[:400]}"
    for item in walk(body):
        if "correct_answer" in item or "truth" in item:
            assert (item["stream"], item["step"]) in {(0, 0), (0, 1)}, f"{where}: an answer shown: {item}"
        if "session" in item and isinstance(item["session"], int):
            assert item["session"] == world["session"].pk, f"{where}: another session: {item}"
        if "id" in item and "system" in item:
            assert item["system"] == world["systems"][0].pk, f"{where}: another system's session: {item}"


def walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def test_no_operation_of_the_schema_leaks_to_a_system_midway(
    probe_world, system_token, token_client, client, owner
):
    world = probe_world
    api = token_client(system_token)
    test, session = world["test"], world["session"]
    images = list(test.test_images.order_by("position").values_list("pk", flat=True))
    others = [s.pk for s in world["others"]]
    id_sets = [
        {
            "session_id": session.pk,
            "test_id": test.pk,
            "system_id": world["systems"][0].pk,
            "image_id": images[0],
        },
        *({"session_id": other, "test_id": test.pk, "image_id": images[0]} for other in others),
        *({"session_id": session.pk, "image_id": image} for image in images[1:]),
        *({"system_id": system.pk} for system in world["systems"][1:]),
    ]
    operations = schema_operations()
    assert any("/evaluation/sessions/{session_id}/answers/" in path for path, _ in operations)
    calls = 0
    for path, method in operations:
        for values in id_sets:
            url = fill(path, values)
            for body in bodies(path, world) if method != "GET" else [None]:
                response = getattr(api, method.lower())(url, body, format="json")
                calls += 1
                assert response.status_code < 500, (method, url, response.status_code)
                reached = url == f"/api/v1/evaluation/sessions/{session.pk}/images/{images[0]}/"
                page = values.get("system_id", 1) if path.endswith("/systems/{system_id}/scores/") else None
                check(response, world, f"{method} {url}", image_allowed=reached, system_page=page)
    assert calls > 100
    # The rival's page was read (its system is public): its finished session on the test being taken is
    # left out, and the page says which test is left out.
    rival = api.get(f"/api/v1/evaluation/systems/{world['systems'][1].pk}/scores/").json()
    assert rival["sessions"] == [] and rival["left_out"] == [{"id": test.pk, "name": test.name}]
    # Nothing the probe sent changed the session.
    session.refresh_from_db()
    assert session.answered == ANSWERED and session.state == "active"
    # The probe did see its own current question (so the check above can fail).
    current = api.get(f"/api/v1/evaluation/sessions/{session.pk}/question/").json()["current"]
    assert current["text"] == "QTEXT-s0-i3-attr"
    # The admin pages are not reachable by the owner's browser session either.
    client.force_login(owner)
    for page in ("/admin/", "/admin/evaluation/session/", "/admin/truthing/step/"):
        assert client.get(page).status_code in (301, 302, 403, 404)


def test_the_probe_finds_a_leak_when_there_is_one(probe_world, system_token, token_client):
    """The check itself: the current question's answer response (a step the probe may not answer) holds
    the next question's text, which the check must flag."""
    world = probe_world
    response = token_client(system_token).post(
        f"/api/v1/evaluation/sessions/{world['session'].pk}/answers/",
        {"stream": 0, "step": 2, "answer": "yes"},
        format="json",
    )
    with pytest.raises(AssertionError):
        check(response, world, "answering the current step")


def test_the_probe_finds_another_systems_session_on_its_page(probe_world, make_user, api):
    """The check on a system's public page: seen by someone who is not taking the test, the rival's page
    holds its session on the test, which the check must flag."""
    world = probe_world
    rival = world["systems"][1]
    response = api.as_user(make_user(Role.ANNOTATOR)).get(f"/api/v1/evaluation/systems/{rival.pk}/scores/")
    assert [s["session"] for s in response.json()["sessions"]] == [world["others"][0].pk]
    with pytest.raises(AssertionError):
        check(response, world, "the rival's page, as an annotator sees it", system_page=rival.pk)


def test_every_token_and_login_of_an_owner_taking_a_test_is_refused_its_leaderboard(
    probe_world, owner, token_client, client
):
    """Rule 7 holds for the owner, not only for the system taking the test: a token of another of the
    owner's systems, registered and never enrolled, and the owner's own login are refused the board."""
    from evaluation.services.systems import system_token_create

    test = probe_world["test"]
    idle = system_create(owner=owner, name="never enrolled")
    idle_token = system_token_create(system=idle, name="idle")[1]
    url = f"/api/v1/evaluation/tests/{test.pk}/leaderboard/"
    response = token_client(idle_token).get(url)
    assert response.status_code == 409 and response.json()["code"] == "session_not_over"
    client.force_login(owner)
    assert client.get(url).status_code == 409
    assert client.get(f"/leaderboards/{test.pk}/").status_code == 409
    # Every page of a system another owner finished the test with leaves that session out, too.
    rival = probe_world["systems"][1]
    page = token_client(idle_token).get(f"/api/v1/evaluation/systems/{rival.pk}/scores/").json()
    assert page["sessions"] == [] and page["left_out"] == [{"id": test.pk, "name": test.name}]


def test_the_leaderboard_shows_no_position_that_few_streams_reach_while_the_test_can_be_taken(
    probe_world, make_user, api, settings
):
    """At a position one stream reaches, the always-no rival's accuracy is the truth there. While the
    test can be taken, every figure by position pools at least EVALUATION_POSITION_MIN answers (or is
    the whole score); once it is archived, positions are shown one by one."""
    from tests.evaluation.conftest import archive

    world = probe_world
    reader = api.as_user(make_user(Role.VISION_SYSTEM_OWNER, username="reader"))
    minimum = evaluation_conf.EVALUATION_POSITION_MIN
    board = reader.get(f"/api/v1/evaluation/tests/{world['test'].pk}/leaderboard/").json()
    (row,) = board["rows"]
    assert row["by_position"], "no accuracy by position at all"
    for entry in row["by_position"]:
        assert entry["trials"] >= minimum or entry["trials"] == row["accuracy"]["trials"], entry
    archive(world["test"])
    board = reader.get(f"/api/v1/evaluation/tests/{world['test'].pk}/leaderboard/").json()
    assert [entry["trials"] for entry in board["rows"][0]["by_position"]] == [3, 3, 2, 2, 1]
