"""What the leaderboard page says about the blind prior (issue 38, item 6): the header quoted the blind
prior on the test's own streams (0.496 on the demo) while the blind-prior baseline's row said 0.554
and the top row's "seeing minus blind" -0.031, and a reader could not tell why. Each session is dealt
streams of its own, so each figure is the blind prior on other questions: the header's is labelled as
the whole test's, with its question count, and each row shows the blind prior on its own questions,
from which its "seeing minus blind" is taken."""

from __future__ import annotations

import re

import pytest

from accounts.roles import Role
from evaluation.services.scores import score_store
from evaluation.services.sessions import answer_submit, session_enrol
from evaluation.services.systems import system_create
from tests.evaluation.test_dealing_pools import IMAGES, POOL, pooled_test

pytestmark = pytest.mark.django_db


def figure(html: str, name: str) -> str:
    """The text of the cell or definition marked data-figure=name (its inner spans included)."""
    found = re.search(rf'data-figure="{name}"[^>]*>(.*?)</(?:td|dd)>', html, re.S)
    assert found, name
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", found.group(1))).strip()


def test_the_header_and_each_row_say_on_which_questions_their_blind_prior_is(client, users):
    """A pool of 3 one-question streams on each of 4 images: the first stream's truth is yes at
    p = 0.3, the others' no at p = 0.5, and the blind prior says no to all. It is right on 8 of the 12
    questions of the test's own streams, and on 0 to 4 of the 4 a session is dealt: never 2/3."""
    test = pooled_test()
    system = system_create(owner=users[Role.VISION_SYSTEM_OWNER], name="yes-sayer")
    session = session_enrol(system=system, test_id=test.pk)
    for stream in range(IMAGES):
        answer_submit(session_id=session.pk, stream=stream, step=0, answer=True)
    score_store(session_id=session.pk)
    client.force_login(users[Role.ANNOTATOR])
    html = client.get(f"/leaderboards/{test.pk}/").content.decode()

    whole = figure(html, "blind-prior-test")
    assert whole.startswith("0.667") and f"{IMAGES * POOL} questions" in whole
    assert "the test's own streams" in whole
    row = client.get(f"/api/v1/evaluation/tests/{test.pk}/leaderboard/").json()["rows"][0]
    assert row["blind_prior"]["trials"] == IMAGES and row["blind_prior"]["value"] in (0, 0.25, 0.5, 0.75, 1)
    assert figure(html, "blind-prior").startswith(f"{row['blind_prior']['value']:.3f} [")
    # A reader can do the row's arithmetic: accuracy minus the blind prior on its questions.
    seeing = row["accuracy"]["value"] - row["blind_prior"]["value"]
    assert row["seeing_minus_blind"]["value"] == pytest.approx(seeing)
    assert figure(html, "seeing-minus-blind").startswith(f"{seeing:.3f}")
    # And it is told why the figures differ, on the page.
    explained = re.sub(r"<[^>]+>|\s+", " ", html)
    assert "dealt streams of its own" in explained and "on its own questions" in explained
