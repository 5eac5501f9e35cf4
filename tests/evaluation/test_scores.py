"""Scores of a hand-built session equal hand-computed values, intervals included; McNemar's exact test
against hand-computed binomial tails; a score recomputed from the stored answers is the same."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from evaluation.models import Score
from evaluation.selectors.scores import session_score
from evaluation.services.scores import score_store
from evaluation.services.sessions import answer_submit, session_enrol
from evaluation.services.systems import system_create
from scoring.scores import compare
from scoring.stats import mcnemar_exact

pytestmark = pytest.mark.django_db

# DEFAULT_STREAMS as shown (the rejected step dropped), answering "yes" everywhere:
#   stream 0: exist yes (right), unique yes (right), attr no (wrong), unique no (wrong)
#   stream 1: exist no (wrong), unique yes, attr yes, unique yes, rel yes (right x4)
#   stream 2: exist yes (right), exist no (wrong)
POSITIONS = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 0), (2, 1)]


def take(system, test, answer: bool, django_capture_on_commit_callbacks):
    session = session_enrol(system=system, test_id=test.pk)
    with django_capture_on_commit_callbacks(execute=True):
        for stream, step in POSITIONS:
            answer_submit(session_id=session.pk, stream=stream, step=step, answer=answer)
    session.refresh_from_db()
    return session


def test_the_scores_of_a_hand_built_session_are_the_hand_computed_ones(
    published_test, system, django_capture_on_commit_callbacks
):
    session = take(system, published_test, True, django_capture_on_commit_callbacks)
    data = Score.objects.get(session=session).data  # stored by the task when the session ended
    # 7 right of 11; Wilson 95%: centre (p + z^2/2n)/(1 + z^2/n), half-width z sqrt(p(1-p)/n + z^2/4n^2)/(...)
    assert data["accuracy"]["successes"] == 7 and data["accuracy"]["trials"] == 11
    assert data["accuracy"]["value"] == pytest.approx(7 / 11)
    assert data["accuracy"]["low"] == pytest.approx(0.35380117450784887, abs=1e-12)
    assert data["accuracy"]["high"] == pytest.approx(0.8483352890463243, abs=1e-12)
    kinds = {
        k: (v["successes"], v["trials"], round(v["low"], 6), round(v["high"], 6))
        for k, v in data["by_kind"].items()
    }
    assert kinds == {
        "exist": (2, 4, 0.150039, 0.849961),
        "unique": (3, 4, 0.300642, 0.954413),
        "attr": (1, 2, 0.094531, 0.905469),
        "rel": (1, 1, 0.206549, 1.0),
    }
    positions = [(p["successes"], p["trials"]) for p in data["by_position"]]
    assert positions == [(2, 3), (2, 3), (1, 2), (1, 2), (1, 1)]
    assert data["by_position"][0]["low"] == pytest.approx(0.2076596008020477, abs=1e-12)
    # First mistakes (1-based): stream 0 at 3, stream 1 at 1, stream 2 at 2: mean 2, sd 1, n 3.
    first = data["first_mistake"]
    assert first["mean"] == 2 and first["streams"] == 3
    assert first["low"] == pytest.approx(2 - 1.959963984540054 / 3**0.5)
    assert first["high"] == pytest.approx(2 + 1.959963984540054 / 3**0.5)
    # Exactly reproducible from the stored answers.
    assert session_score(session=session) == data
    score_store(session_id=session.pk)
    assert Score.objects.get(session=session).data == data


def test_rel_one_of_one_has_the_wilson_interval_of_one_success():
    from scoring.stats import wilson_interval

    assert wilson_interval(1, 1)[0] == pytest.approx(0.206549314377, abs=1e-11)


def test_mcnemar_exact_is_the_binomial_tail():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(10, 0) == pytest.approx(2 / 1024)
    # b=7, c=4: 2 * (C(11,0)+C(11,1)+...+C(11,4)) / 2^11 = 2 * 562 / 2048
    assert mcnemar_exact(7, 4) == pytest.approx(1124 / 2048)
    assert mcnemar_exact(4, 7) == mcnemar_exact(7, 4)
    assert mcnemar_exact(5, 5) == 1.0


def test_two_systems_are_compared_on_the_questions_both_answered(
    published_test, owner, system, make_user, django_capture_on_commit_callbacks
):
    yes = take(system, published_test, True, django_capture_on_commit_callbacks)
    no = take(
        system_create(owner=owner, name="always no"),
        published_test,
        False,
        django_capture_on_commit_callbacks,
    )
    from evaluation.selectors.scores import session_answers

    result = compare(session_answers(yes), session_answers(no))
    assert result == {
        "paired": 11,
        "a_only_right": 7,
        "b_only_right": 4,
        "p_value": pytest.approx(1124 / 2048),
        "significant": False,
    }


def test_the_leaderboard_ranks_and_compares(
    published_test, owner, system, api, make_user, django_capture_on_commit_callbacks
):
    take(system, published_test, True, django_capture_on_commit_callbacks)
    take(
        system_create(owner=owner, name="always no"),
        published_test,
        False,
        django_capture_on_commit_callbacks,
    )
    board = (
        api.as_user(make_user(Role.ANNOTATOR))
        .get(f"/api/v1/evaluation/tests/{published_test.pk}/leaderboard/")
        .json()
    )
    assert [row["system"]["name"] for row in board["rows"]] == ["my system", "always no"]
    assert board["rows"][0]["vs_next"]["p_value"] == pytest.approx(1124 / 2048)
    assert board["rows"][1]["vs_next"] is None
