"""A vision system's page as the web shows it: who may open it, what someone who is not its owner sees
(scores; stream by stream only where decision 0032 allows, else why not), what its owner sees besides
(tokens, every question with its answer and the truth), and the leaderboard's rows leading to it."""

from __future__ import annotations

import re

import pytest

from accounts.models import ApiToken
from accounts.roles import Role
from evaluation.services.sessions import answer_submit, session_enrol
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def articles(response) -> dict[str, str]:
    """The page's sessions, by test name: the HTML of each."""
    html = response.content.decode()
    return dict(
        re.findall(r'<article data-testid="session-scores" data-test="([^"]+)">(.*?)</article>', html, re.S)
    )


def open_page(client, user, system, status: int = 200):
    client.force_login(user)
    response = client.get(f"/systems/{system.pk}/")
    assert response.status_code == status
    return response


def test_a_leaderboard_row_leads_to_the_systems_page_for_someone_who_is_not_its_owner(
    client, scored_world, users
):
    world = scored_world
    client.force_login(users[Role.ANNOTATOR])
    board = client.get(f"/leaderboards/{world['published'].pk}/").content.decode()
    assert f'href="/systems/{world["alpha"].pk}/"' in board
    assert f'href="/systems/{world["baseline"].pk}/"' in board
    page = open_page(client, users[Role.ANNOTATOR], world["alpha"])
    html = page.content.decode()
    assert (
        'data-testid="system-name">alpha<' in html
        and "looks hard" in html
        and "https://example.org/a" in html
    )
    assert 'data-testid="system-owner">vision-system-owner<' in html
    street = articles(page)["street test"]
    assert "64%" in street and "[35%, 85%] of 11" in street  # 7 of 11, Wilson interval
    assert "mean first mistake at 2.00" in street
    assert re.findall(r"<tr><td>(\w+)</td>", street)[:4] == ["exist", "unique", "attr", "rel"]
    assert f'href="/leaderboards/{world["published"].pk}/"' in street
    # An annotator cannot enrol a system: the streams are shown.
    assert 'data-testid="stream-table"' in street and 'data-testid="streams-withheld"' not in street
    # Nothing of the owner's: no token form, no question, no truth.
    assert "Create scoped token" not in html and 'data-testid="system-sessions"' not in html
    assert "QTEXT" not in html


def test_another_owner_sees_streams_only_on_the_archived_test_and_reads_why(client, scored_world):
    page = open_page(client, scored_world["other_owner"], scored_world["alpha"])
    found = articles(page)
    assert 'data-testid="stream-table"' not in found["street test"]
    withheld = re.search(r'data-testid="streams-withheld">(.*?)</p>', found["street test"], re.S).group(1)
    assert withheld == (
        "Stream-by-stream results on street test are shown to vision-system owners once the test is "
        "archived: while it can still be taken, a system&#x27;s accuracy on each stream tells something "
        "about the answers on that stream&#x27;s image."
    )
    assert 'data-testid="stream-table"' in found["old test"]
    rows = re.findall(r"<tr><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>\s*<td>(\d+)</td>", found["old test"])
    # Streams are numbered from 1 on the page, as positions and "first mistake" are.
    assert rows == [("1", "4", "4", "2"), ("2", "5", "5", "4"), ("3", "2", "2", "1")]


@pytest.mark.parametrize("role", [Role.OPERATOR, Role.ADMIN])
def test_staff_and_admins_see_the_streams_of_a_published_test(role, client, scored_world, users):
    found = articles(open_page(client, users[role], scored_world["alpha"]))
    assert 'data-testid="stream-table"' in found["street test"]


def test_the_owner_keeps_tokens_and_every_answer_with_its_truth(client, scored_world):
    page = open_page(client, scored_world["owner"], scored_world["hidden"])  # private: still the owner's
    html = page.content.decode()
    assert "Create scoped token" in html and 'data-testid="system-sessions"' in html
    assert "QTEXT-s0-i0-exist" in html and "private on the leaderboard" in html
    assert 'data-testid="stream-table"' in articles(page)["street test"]


def test_a_private_system_is_a_404_for_everyone_but_its_owner_and_admins(client, scored_world, users):
    for user in (scored_world["other_owner"], users[Role.ANNOTATOR], users[Role.OPERATOR]):
        open_page(client, user, scored_world["hidden"], status=404)
    open_page(client, users[Role.ADMIN], scored_world["hidden"])
    # A user with no role may read no leaderboard, hence no system page.
    open_page(client, UserFactory(username="nobody"), scored_world["alpha"], status=403)


def test_while_a_system_of_yours_takes_a_test_no_other_systems_session_on_it_is_shown(client, scored_world):
    world = scored_world
    session = session_enrol(system=world["newcomer"], test_id=world["published"].pk)
    answer_submit(session_id=session.pk, stream=0, step=0, answer=True)
    page = open_page(client, world["other_owner"], world["alpha"])
    assert list(articles(page)) == ["old test"]
    note = re.search(r'data-testid="left-out">(.*?)</p>', page.content.decode(), re.S).group(1)
    assert note == (
        "Results on street test are left out while a system of yours is taking that test: they are shown "
        "once your session is over."
    )
    assert client.get(f"/leaderboards/{world['published'].pk}/").status_code == 409


def test_nobody_but_the_owner_creates_a_token_on_a_public_systems_page(client, scored_world, users):
    for user in (scored_world["other_owner"], users[Role.ANNOTATOR]):
        client.force_login(user)
        assert client.post(f"/systems/{scored_world['alpha'].pk}/", {"name": "mine"}).status_code == 404
    assert not ApiToken.objects.filter(name="mine").exists()


def test_a_streams_picture_is_shown_to_the_systems_owner_once_the_session_is_over_and_to_nobody_else(
    client, scored_world, users
):
    from truthing.published import plan_of_test

    alpha, session = scored_world["alpha"], scored_world["sessions"]["published"]
    picture = plan_of_test(test_id=session.test_id).streams[0].test_image_id
    url = f"/systems/{alpha.pk}/sessions/{session.pk}/images/{picture}/"
    client.force_login(scored_world["owner"])
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert client.get(f"/systems/{alpha.pk}/sessions/{session.pk}/images/999999/").status_code == 404
    for someone in (scored_world["other_owner"], users[Role.ANNOTATOR]):
        client.force_login(someone)
        assert client.get(url).status_code == 404
