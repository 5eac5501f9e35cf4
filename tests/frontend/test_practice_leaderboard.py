"""Issue 46, item 10: a practice test has no leaderboard, and its leaderboard address answered a bare
"There is no page". It now says why, and where the owner's practice results are: each of their
systems' pages, under Sessions, marked practice."""

from __future__ import annotations

import html as entities
import re

import pytest

from accounts.roles import Role
from evaluation.services.systems import system_create
from tests.evaluation.test_practice import practice_test

pytestmark = pytest.mark.django_db


def text_of(html: str) -> str:
    return entities.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_the_practice_tests_leaderboard_address_says_why_there_is_none_and_where_results_are(client, users):
    owner = users[Role.VISION_SYSTEM_OWNER]
    system = system_create(owner=owner, name="my first try")
    test = practice_test(name="warm-up")
    client.force_login(owner)

    response = client.get(f"/leaderboards/{test.pk}/")

    html = response.content.decode()
    assert response.status_code == 200, html[:300]
    said = text_of(html)
    assert "warm-up is a practice test" in said and "never on a leaderboard" in said
    assert f'href="/systems/{system.pk}/"' in html, "no link to where the owner's practice results are"
    assert "There is no page" not in said


def test_a_reader_with_no_system_is_told_why_without_a_list_of_systems(client, users):
    test = practice_test(name="warm-up")
    client.force_login(users[Role.ANNOTATOR])
    said = text_of(client.get(f"/leaderboards/{test.pk}/").content.decode())
    assert "warm-up is a practice test" in said and "their system's page" in said
    assert "Your vision systems" not in said
