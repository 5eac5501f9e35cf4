"""The leaderboard's row is written once (evaluation.leaderboard_row.COLUMNS): the API's row, its
serializer and the page's table are all made from the columns, so a column added there is in all three,
and none of them has a key or a cell of its own."""

from __future__ import annotations

import re

import pytest
from rest_framework import serializers

from accounts.roles import Role
from evaluation import leaderboard_row
from evaluation.leaderboard_row import COLUMNS, Column
from evaluation.services.systems import system_create
from tests.evaluation.test_scores import take

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_rows(published_test, owner, system, django_capture_on_commit_callbacks):
    take(system, published_test, True, django_capture_on_commit_callbacks)
    other = system_create(owner=owner, name="always no")
    take(other, published_test, False, django_capture_on_commit_callbacks)
    return published_test


def _board(api, make_user, test):
    return (
        api.as_user(make_user(Role.ANNOTATOR)).get(f"/api/v1/evaluation/tests/{test.pk}/leaderboard/").json()
    )


def _table(client, make_user, test) -> tuple[list[str], list[list[str]]]:
    """The page's table: its headings, and each row's cells as text."""
    client.force_login(make_user(Role.ANNOTATOR, username="reader"))
    html = client.get(f"/leaderboards/{test.pk}/").content.decode()
    table = html[html.index('data-testid="leaderboard"') : html.index("</table>")]
    headings = re.findall(r"<th>(.*?)</th>", table)
    body = table[table.index("<tbody>") :]
    rows = [
        re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]
    return headings, [[re.sub(r"<[^>]+>", "", cell).strip() for cell in row] for row in rows]


def test_the_api_row_the_serializer_and_the_page_follow_the_columns(two_rows, api, make_user, client):
    board = _board(api, make_user, two_rows)
    assert [list(row) for row in board["rows"]] == [[column.key for column in COLUMNS]] * 2
    headings, rows = _table(client, make_user, two_rows)
    assert headings == [heading for column in COLUMNS for heading in column.headings]
    assert [len(row) for row in rows] == [len(headings)] * 2
    assert rows[0][:3] == ["1", "my system", f"{board['rows'][0]['accuracy']['value']:.3f}"]


def test_a_column_added_in_one_place_is_in_the_api_and_on_the_page(
    two_rows, api, make_user, client, monkeypatch
):
    answered = Column(
        "answered", lambda facts: len(facts.answers), serializers.IntegerField, headings=("Answered",)
    )
    monkeypatch.setattr(leaderboard_row, "COLUMNS", (*COLUMNS, answered))
    board = _board(api, make_user, two_rows)
    assert [row["answered"] for row in board["rows"]] == [11, 11]
    headings, rows = _table(client, make_user, two_rows)
    assert headings[-1] == "Answered" and [row[-1] for row in rows] == ["11", "11"]
