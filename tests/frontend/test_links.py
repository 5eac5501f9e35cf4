"""Every link of every page resolves (issue 46, item 6: the method page's `decisions/` link was a 404, and
/docs/ itself was one). For each role, and for a visitor who is not logged in, a walker starts at the home
page and follows every link of every page of the site it reaches, the docs included: none answers a 404
or a 500. The admin's own pages and the API's are opened where a page links to them, not walked (Django
and DRF make their links)."""

from __future__ import annotations

import re
from collections import deque
from html import unescape
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest

from accounts.roles import Role
from frontend.docs import doc_pages

pytestmark = pytest.mark.django_db

HREF = re.compile(r'<a\b[^>]*\bhref="([^"]*)"')
NOT_WALKED = ("/admin/", "/api/", "/static/", "/media/")
FOUND = {200, 301, 302}  # a redirect is followed: it is walked like a link


def links_of(url: str, html: str) -> set[str]:
    """The page's links to this site, absolute, without their anchors."""
    found = set()
    for href in HREF.findall(html):
        target = urldefrag(urljoin(url, unescape(href)))[0]
        parts = urlsplit(target)
        if parts.scheme in ("", "http", "https") and parts.netloc in ("", "testserver") and parts.path:
            found.add(parts.path + (f"?{parts.query}" if parts.query else ""))
    return found


def walk(client, start: str = "/") -> tuple[set[str], dict[str, tuple[int, str]]]:
    """Every page reached from `start`, and each link that did not resolve with its status and the page
    that links to it."""
    seen, broken = {start}, {}
    queue = deque([(start, "(start)")])
    while queue:
        url, linked_from = queue.popleft()
        response = client.get(url)
        if response.status_code not in FOUND:
            broken[url] = (response.status_code, linked_from)
            continue
        if response.status_code in (301, 302):
            targets = {urljoin(url, response["Location"])}
        elif url.startswith(NOT_WALKED) or "text/html" not in response.get("Content-Type", ""):
            continue
        else:
            targets = links_of(url, response.content.decode())
        for target in sorted(targets - seen):
            seen.add(target)
            queue.append((target, url))
    return seen, broken


@pytest.mark.parametrize("role", [*Role, None], ids=[*(role.value for role in Role), "not logged in"])
def test_every_link_of_every_page_a_role_reaches_resolves(client, users, scored_world, collection, role):
    if role is not None:
        client.force_login(users[role])
    seen, broken = walk(client)
    assert not broken, f"{role}: {broken}"
    # The walk reached the docs, from the top bar's Help, and every page of them, through the index.
    assert {f"/docs/{page}/" for page in doc_pages()} <= seen
