"""Issue 36: the current question comes with the stream so far (`history`), exactly what the system was
told; an answer may carry the system's probability of yes (`p_yes`), validated before anything is stored
and scored by proper scoring rules."""

from __future__ import annotations

import math

import pytest

from evaluation.models import Answer, Session
from scoring.forecasts import LOG_LOSS_CLIP
from tests.evaluation.conftest import DEFAULT_STREAMS
from tests.evaluation.test_sessions import enrol

pytestmark = pytest.mark.django_db

SHOWN = [[(k, a) for k, a in stream if a != "ambiguous"] for stream in DEFAULT_STREAMS]


def post(client, session_id, body):
    return client.post(f"/api/v1/evaluation/sessions/{session_id}/answers/", body, format="json")


def question(client, session_id):
    return client.get(f"/api/v1/evaluation/sessions/{session_id}/question/").json()


def test_the_history_is_the_current_stream_so_far_with_the_answers_and_the_truths(
    published_test, system_token, token_client
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    told: list[dict] = []  # what the answers' responses said, stream by stream
    body = question(client, session_id)
    assert body["history"] == []
    while body["current"] is not None:
        current = body["current"]
        if current["step"] == 0:
            told = []
        assert [(e["stream"], e["step"]) for e in body["history"]] == [
            (current["stream"], i) for i in range(current["step"])
        ]
        assert body["history"] == told
        p = 0.75 if current["step"] % 2 else None
        response = post(
            client,
            session_id,
            {"stream": current["stream"], "step": current["step"], "answer": "yes", "p_yes": p},
        ).json()
        assert response["p_yes"] == p
        told.append(
            {
                "stream": current["stream"],
                "step": current["step"],
                "question": current["question"],
                "text": current["text"],
                "answer": "yes",
                "p_yes": p,
                "truth": response["correct_answer"],
                "label": response["label"],
            }
        )
        body = question(client, session_id)
    assert body["history"] == []  # the session is over: no current stream


def test_the_history_of_a_new_stream_holds_nothing_of_the_stream_before(
    published_test, system_token, token_client
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    for step in range(len(SHOWN[0])):
        assert post(client, session_id, {"stream": 0, "step": step, "answer": "no"}).status_code == 200
    body = question(client, session_id)
    assert (body["current"]["stream"], body["current"]["step"]) == (1, 0)
    assert body["history"] == []
    assert post(client, session_id, {"stream": 1, "step": 0, "answer": "no"}).status_code == 200
    history = question(client, session_id)["history"]
    assert [(e["stream"], e["step"], e["answer"], e["truth"]) for e in history] == [
        (1, 0, "no", SHOWN[1][0][1])
    ]


@pytest.mark.parametrize(
    ("p_yes", "answer", "message"),
    [
        (1.5, "yes", "less than or equal to 1"),
        (-0.1, "no", "greater than or equal to 0"),
        ("0.7", "yes", "valid number"),
        (True, "yes", "valid number"),
        (0.8, "no", "says yes, but the answer is no"),
        (0.2, "yes", "says no, but the answer is yes"),
    ],
)
def test_a_p_yes_that_is_not_a_probability_agreeing_with_the_answer_is_a_400_and_stores_nothing(
    published_test, system_token, token_client, p_yes, answer, message
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    response = post(client, session_id, {"stream": 0, "step": 0, "answer": answer, "p_yes": p_yes})
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["p_yes"] and message in response.json()["fields"]["p_yes"][0]
    assert not Answer.objects.filter(session_id=session_id).exists()
    assert Session.objects.get(pk=session_id).answered == 0


def test_a_non_finite_p_yes_is_refused(published_test, system_token, token_client):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    body = '{"stream": 0, "step": 0, "answer": "yes", "p_yes": NaN}'
    response = client.post(
        f"/api/v1/evaluation/sessions/{session_id}/answers/", body, content_type="application/json"
    )
    assert response.status_code == 400
    assert not Answer.objects.filter(session_id=session_id).exists()


def test_one_half_goes_with_either_answer_and_a_replay_must_give_the_same_p(
    published_test, system_token, token_client
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    assert post(client, session_id, {"stream": 0, "step": 0, "answer": "no", "p_yes": 0.5}).status_code == 200
    assert (
        post(client, session_id, {"stream": 0, "step": 1, "answer": "yes", "p_yes": 0.5}).status_code == 200
    )
    replay = post(client, session_id, {"stream": 0, "step": 1, "answer": "yes", "p_yes": 0.5})
    assert replay.status_code == 200 and replay.json()["p_yes"] == 0.5
    changed = post(client, session_id, {"stream": 0, "step": 1, "answer": "yes", "p_yes": 0.9})
    assert changed.status_code == 409 and changed.json()["code"] == "answer_conflict"
    assert "p_yes 0.5" in changed.json()["message"]
    assert list(Answer.objects.filter(session_id=session_id).values_list("p_yes", flat=True)) == [0.5, 0.5]


def _take(client, session_id, p_of):
    """Answer every question: yes, with p_of(ordinal) (None: no p)."""
    body, ordinal, truths = question(client, session_id), 0, []
    while body["current"] is not None:
        current = body["current"]
        p = p_of(ordinal)
        answer = "yes" if p is None or p >= 0.5 else "no"
        response = post(
            client,
            session_id,
            {"stream": current["stream"], "step": current["step"], "answer": answer, "p_yes": p},
        ).json()
        truths.append((current["stream"], p, response["correct_answer"] == "yes"))
        body, ordinal = {"current": response["next"]}, ordinal + 1
    return truths


def test_the_score_gains_the_brier_score_the_log_loss_and_the_calibration_error(
    published_test, system_token, token_client, django_capture_on_commit_callbacks
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    ps = [0.9, 0.6, 0.3, 1.0, 0.0, 0.55, 0.45, 0.8, 0.2, 0.7]
    with django_capture_on_commit_callbacks(execute=True):
        truths = _take(client, session_id, lambda i: ps[i % len(ps)])
    score = client.get(f"/api/v1/evaluation/sessions/{session_id}/score/").json()
    forecasts = score["forecasts"]
    n = len(truths)
    assert (forecasts["given"], forecasts["questions"], forecasts["complete"]) == (n, n, True)
    brier = sum((p - y) ** 2 for _, p, y in truths) / n
    clip = lambda p: min(max(p, LOG_LOSS_CLIP), 1 - LOG_LOSS_CLIP)  # noqa: E731
    log_loss = sum(-math.log(clip(p) if y else 1 - clip(p)) for _, p, y in truths) / n
    assert forecasts["brier"]["value"] == pytest.approx(brier)
    assert forecasts["log_loss"]["value"] == pytest.approx(log_loss)
    assert forecasts["brier"]["low"] < brier < forecasts["brier"]["high"]
    assert sum(row["n"] for row in forecasts["reliability"]) == n
    # The stored score (the Celery task's) says the same.
    stored = Session.objects.get(pk=session_id).score.data["forecasts"]
    for figure in ("brier", "log_loss", "calibration_error"):
        assert {k: stored[figure][k] for k in ("value", "low", "high")} == forecasts[figure]


def test_probabilities_on_some_answers_are_scored_on_those_and_say_so(
    published_test, system_token, token_client
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    truths = _take(client, session_id, lambda i: 0.8 if i < 4 else None)
    forecasts = client.get(f"/api/v1/evaluation/sessions/{session_id}/score/").json()["forecasts"]
    assert (forecasts["given"], forecasts["questions"], forecasts["complete"]) == (4, len(truths), False)
    assert forecasts["brier"]["value"] == pytest.approx(sum((0.8 - y) ** 2 for _, _, y in truths[:4]) / 4)


def test_a_session_without_probabilities_has_no_forecast_scores(published_test, system_token, token_client):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    _take(client, session_id, lambda i: None)
    assert client.get(f"/api/v1/evaluation/sessions/{session_id}/score/").json()["forecasts"] is None
