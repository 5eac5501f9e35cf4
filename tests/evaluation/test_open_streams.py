"""Several open streams per session (issue 50, item 1; decision 0085): a system works on up to N streams
at once, each in its order; nothing of a stream that is not open, no truth before its answer, a stream's
history its own, and the session finishes only when every stream has."""

from __future__ import annotations

import pytest

from evaluation.models import Answer
from evaluation.services.sessions import answer_submit, session_enrol
from tests.evaluation.conftest import DEFAULT_STREAMS, build_test

pytestmark = pytest.mark.django_db

# Four streams, two open at once: shown steps per stream 4, 5, 2 and 1.
STREAMS = [*DEFAULT_STREAMS, [("exist", "no")]]


@pytest.fixture
def world(system, system_token, token_client):
    test = build_test(STREAMS, open_streams=2)
    session = session_enrol(system=system, test_id=test.pk)
    api = token_client(system_token)
    base = f"/api/v1/evaluation/sessions/{session.pk}"
    return {"test": test, "session": session, "api": api, "base": base}


def _answer(world, stream: int, step: int, answer: str = "yes"):
    return world["api"].post(
        f"{world['base']}/answers/", {"stream": stream, "step": step, "answer": answer}, format="json"
    )


def _open(world) -> list[tuple[int, int]]:
    body = world["api"].get(f"{world['base']}/question/").json()
    return [(q["stream"], q["step"]) for q in body["open"]]


def test_a_test_opens_eight_streams_by_default_and_a_session_keeps_its_tests_number(system):
    from truthing.models import Test

    assert Test._meta.get_field("open_streams").default == 8
    test = build_test(open_streams=3)
    session = session_enrol(system=system, test_id=test.pk)
    assert session.open_streams == 3


def test_the_open_streams_are_the_first_n_and_each_is_answered_in_its_order(world):
    api, base = world["api"], world["base"]
    body = api.get(f"{base}/question/").json()
    assert body["open_streams"] == 2 and [(q["stream"], q["step"]) for q in body["open"]] == [(0, 0), (1, 0)]
    assert body["current"]["stream"] == 0 and body["history"] == []
    # Stream 1 first, then stream 0: the streams are independent.
    reply = _answer(world, 1, 0, "no").json()
    assert reply["correct_answer"] == "no" and (reply["next"]["stream"], reply["next"]["step"]) == (1, 1)
    assert _answer(world, 0, 0).status_code == 200
    assert _open(world) == [(0, 1), (1, 1)]
    # A stream's history is its own: stream 1's holds its one answer, and nothing of stream 0.
    body = api.get(f"{base}/question/", {"stream": 1}).json()
    assert body["current"]["stream"] == 1 and body["current"]["step"] == 1
    assert [(h["stream"], h["step"], h["answer"]) for h in body["history"]] == [(1, 0, "no")]
    assert [h["stream"] for h in api.get(f"{base}/question/", {"stream": 0}).json()["history"]] == [0]


@pytest.mark.parametrize(
    ("stream", "step"),
    [(2, 0), (3, 0), (0, 1), (1, 3), (7, 0)],
    ids=["stream not open", "last stream", "ahead in an open stream", "far ahead", "no such stream"],
)
def test_no_answer_beyond_the_open_streams_or_before_its_turn_is_stored(world, stream, step):
    response = _answer(world, stream, step)
    assert response.status_code == 409 and response.json()["code"] == "step_not_current"
    message = response.json()["message"]
    assert message == (
        "Only the current question of an open stream can be answered: the open streams are at stream 0, "
        "step 0, stream 1, step 0. Nothing was stored."
    )
    assert not Answer.objects.filter(session=world["session"]).exists()
    assert _open(world) == [(0, 0), (1, 0)]


def test_a_stream_that_is_not_open_is_neither_shown_nor_its_image_served(world):
    api, base, test = world["api"], world["base"], world["test"]
    images = list(test.test_images.order_by("position").values_list("pk", flat=True))
    response = api.get(f"{base}/question/", {"stream": 2})
    assert response.status_code == 409 and response.json()["code"] == "stream_not_open"
    assert "QTEXT-s2" not in response.content.decode()
    assert api.get(f"{base}/question/", {"stream": "x"}).status_code == 400
    assert api.get(f"{base}/images/{images[1]}/").status_code == 200  # open
    assert api.get(f"{base}/images/{images[2]}/").status_code == 404  # not open yet
    # Stream 0 finishes (4 steps): stream 2 opens in its place, and comes as the answer's next question.
    for step in range(3):
        _answer(world, 0, step)
    reply = _answer(world, 0, 3).json()
    assert reply["stream_ended"] and (reply["next"]["stream"], reply["next"]["step"]) == (2, 0)
    assert _open(world) == [(1, 0), (2, 0)]
    assert api.get(f"{base}/images/{images[2]}/").status_code == 200
    assert api.get(f"{base}/images/{images[3]}/").status_code == 404


def test_the_session_finishes_only_when_every_stream_has(world):
    session = world["session"]
    plan = {0: 4, 1: 5, 2: 2}
    finished = []
    # Stream 1 is answered last, so stream 0, 2 and 3 finish first (3 opens once 0 does, after 2).
    for stream in (0, 2, 3, 1):
        steps = plan.get(stream, 1)
        for step in range(steps):
            reply = _answer(world, stream, step).json()
            assert "code" not in reply, reply
            finished.append(reply["session_finished"])
    assert finished == [False] * (len(finished) - 1) + [True]
    session.refresh_from_db()
    assert session.state == "finished" and session.answered == 12 == session.total
    # A replay of the last answer says the same; of an earlier one, not finished.
    assert _answer(world, 1, 4).json()["session_finished"] is True
    assert _answer(world, 0, 0).json()["session_finished"] is False


def test_an_answer_posted_again_is_a_replay_and_a_different_one_a_conflict(world):
    first = _answer(world, 1, 0).json()
    assert _answer(world, 1, 0).json() == first
    conflict = _answer(world, 1, 0, "no")
    assert conflict.status_code == 409 and conflict.json()["code"] == "answer_conflict"
    assert Answer.objects.filter(session=world["session"]).count() == 1


def test_one_open_stream_is_one_question_at_a_time_in_the_plans_order(system):
    test = build_test(STREAMS, open_streams=1)
    session = session_enrol(system=system, test_id=test.pk)
    for stream, steps in enumerate([4, 5, 2, 1]):
        for step in range(steps):
            result = answer_submit(session_id=session.pk, stream=stream, step=step, answer=True)
            following = result.next
            expected = (stream, step + 1) if step + 1 < steps else (stream + 1, 0)
            if stream == 3:
                assert following is None and result.finished
            else:
                assert (following.stream_pos, following.step_pos) == expected
