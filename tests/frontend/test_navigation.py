"""Every link of the top bar opens for the role it is shown to (issue 38: "Vision systems" was shown to
annotators, reviewers and operators, and /systems/ refused all three with a 403). A user in each role,
and one with no role yet, opens every link of its navigation: 200, never a 403 or a 404."""

from __future__ import annotations

import re

import pytest

from accounts.roles import Role

pytestmark = pytest.mark.django_db


def nav_links(html: str) -> list[str]:
    """The links of the top bar: the brand and the navigation."""
    bar = re.search(r'<header class="topbar">(.*?)</header>', html, re.S)
    assert bar, "the page has no top bar"
    return re.findall(r'<a [^>]*href="([^"]+)"', bar.group(1))


@pytest.mark.parametrize("role", [*Role, None], ids=[*(role.value for role in Role), "no role"])
def test_every_link_of_the_navigation_opens_for_its_role(client, make_user, role):
    client.force_login(make_user(role, username="walker"))
    home = client.get("/")
    assert home.status_code == 200
    links = nav_links(home.content.decode())
    assert "/" in links, links  # the brand leads home
    refused = {link: client.get(link).status_code for link in links}
    refused = {link: status for link, status in refused.items() if status != 200}
    assert not refused, f"{role}: {refused}"
