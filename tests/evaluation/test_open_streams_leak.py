"""The leak probe with open streams (issue 50): a system midway through a session with two streams open
calls every operation of the API schema with its own token, on every id it could name (the question
with every `?stream=`), and no response holds a question of a stream before its turn (a later step of an
open stream, any step of a stream not open), a truth before its answer, or the pixels of a stream not
open; and nothing it sent changed the session."""

from __future__ import annotations

import json

import pytest

from evaluation.services.sessions import answer_submit, session_enrol
from tests.evaluation.conftest import DEFAULT_STREAMS, build_test
from tests.evaluation.test_leak_probe import fill, schema_operations, walk

pytestmark = pytest.mark.django_db

STREAMS = [*DEFAULT_STREAMS, [("exist", "no")]]
# Answered: stream 0, steps 0 and 1; stream 1, step 0. Open: stream 0 at step 2 (truthing index 3) and
# stream 1 at step 1; streams 2 and 3 are not open.
ANSWERED = [(0, 0), (0, 1), (1, 0)]
SHOWN = {
    "QTEXT-s0-i0-exist",
    "QTEXT-s0-i1-unique",
    "QTEXT-s0-i3-attr",
    "QTEXT-s1-i0-exist",
    "QTEXT-s1-i1-unique",
}
NOT_CURRENT = [(0, 3), (1, 2), (2, 0), (3, 0), (0, 40)]


@pytest.fixture
def world(system):
    test = build_test(STREAMS, open_streams=2)
    session = session_enrol(system=system, test_id=test.pk)
    for stream, step in ANSWERED:
        answer_submit(session_id=session.pk, stream=stream, step=step, answer=True)
    images = list(test.test_images.order_by("position").values_list("pk", flat=True))
    return {"test": test, "session": session, "images": images}


def forbidden(world) -> list[str]:
    texts = [
        f"QTEXT-s{s}-i{i}-{kind}" for s, stream in enumerate(STREAMS) for i, (kind, _) in enumerate(stream)
    ]
    return [text for text in texts if text not in SHOWN] + ["secret-name-", "ambiguous"]


def check(response, world, where: str) -> None:
    if response.get("Content-Type", "").startswith("image/"):
        served = int(where.rstrip("/").split("/")[-1])
        assert served in world["images"][:2], f"{where}: the pixels of a stream not open"
        return
    content = b"".join(response.streaming_content) if response.streaming else response.content
    text = content.decode(errors="replace") + json.dumps(dict(response.items()))
    for bad in forbidden(world):
        assert bad not in text, f"{where}: response holds {bad!r}: {text[:400]}"
    body = json.loads(content) if content[:1] in (b"{", b"[") else None
    for item in walk(body):
        if "correct_answer" in item or "truth" in item:
            assert (item["stream"], item["step"]) in ANSWERED, f"{where}: a truth before its answer: {item}"


def test_no_operation_leaks_a_stream_before_its_turn_with_two_streams_open(world, system_token, token_client):
    api = token_client(system_token)
    session = world["session"]
    id_sets = [
        {"session_id": session.pk, "test_id": world["test"].pk, "image_id": image}
        for image in world["images"]
    ]
    calls = 0
    for path, method in schema_operations():
        for values in id_sets:
            url = fill(path, values)
            if method == "GET":
                queries = [{"stream": str(k)} for k in range(5)] if path.endswith("/question/") else [{}]
                requests = [(query, None) for query in queries]
            else:
                requests = [
                    (None, {"stream": stream, "step": step, "answer": "yes"}) for stream, step in NOT_CURRENT
                ]
                requests.append((None, {"stream": 0, "step": 0, "answer": "no"}))  # a different answer
            for query, body in requests:
                if method == "GET":
                    response = api.get(url, query)
                else:
                    response = getattr(api, method.lower())(url, body, format="json")
                calls += 1
                assert response.status_code < 500, (method, url, response.status_code)
                check(response, world, f"{method} {url}")
    assert calls > 50
    session.refresh_from_db()
    assert session.answered == len(ANSWERED) and session.state == "active"
    # The probe saw both open streams' current questions (so the check above can fail on a later one).
    body = api.get(f"/api/v1/evaluation/sessions/{session.pk}/question/").json()
    assert [q["text"] for q in body["open"]] == ["QTEXT-s0-i3-attr", "QTEXT-s1-i1-unique"]


def test_the_open_streams_probe_finds_a_leak_when_there_is_one(world, system_token, token_client):
    """The check itself: answering stream 1's current step gives its next question, which the probe
    must flag."""
    response = token_client(system_token).post(
        f"/api/v1/evaluation/sessions/{world['session'].pk}/answers/",
        {"stream": 1, "step": 1, "answer": "yes"},
        format="json",
    )
    with pytest.raises(AssertionError):
        check(response, world, "answering stream 1's current step")
