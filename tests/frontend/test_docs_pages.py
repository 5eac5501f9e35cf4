"""The docs are pages of the site (issue 38: pages sent people to repository paths such as
docs/guides/operator.md). Every page of docs/ opens, its links to other docs lead to their pages, the
site's own pages link to them, and nothing outside docs/ is served."""

from __future__ import annotations

import re

import pytest

from accounts.roles import Role
from frontend.docs import doc_pages
from frontend.markdown import markdown_html

pytestmark = pytest.mark.django_db


def doc_links(html: str) -> set[str]:
    return set(re.findall(r'href="(/docs/[^"#]+)', html))


def test_every_page_of_the_docs_opens_and_its_links_to_other_docs_lead_to_pages(client, make_user):
    client.force_login(make_user(Role.ANNOTATOR))
    assert {"guides/operator", "guides/vision-system", "method", "engine"} <= doc_pages()
    linked: set[str] = set()
    for page in sorted(doc_pages()):
        response = client.get(f"/docs/{page}/")
        assert response.status_code == 200, page
        html = response.content.decode()
        assert 'data-testid="doc"' in html and '.md"' not in re.sub(r"https?://[^\"]+", "", html), page
        linked |= doc_links(html)
    assert "/docs/guides/your-own-data/" in linked  # a guide's relative link, rewritten
    assert all(client.get(link).status_code == 200 for link in linked), linked


@pytest.mark.parametrize(
    ("role", "page"),
    [
        (Role.OPERATOR, "/truthing/"),
        (Role.VISION_SYSTEM_OWNER, "/systems/"),
        (Role.VISION_SYSTEM_OWNER, "/"),
        (Role.ADMIN, "/tests/new/"),
    ],
)
def test_a_page_that_names_a_guide_links_to_its_page(client, make_user, role, page):
    client.force_login(make_user(role))
    html = client.get(page).content.decode()
    assert "docs/guides/" not in re.sub(r'href="/docs/[^"]*"', "", html)
    links = doc_links(html)
    assert links and all(client.get(link).status_code == 200 for link in links), links


@pytest.mark.parametrize(
    "path", ["/docs/guides/nope/", "/docs/../pyproject/", "/docs/%2e%2e/README/", "/docs/openapi/"]
)
def test_nothing_but_a_page_of_the_docs_is_served(client, make_user, path):
    client.force_login(make_user(Role.ANNOTATOR))
    assert client.get(path).status_code == 404


def test_the_docs_are_open_to_a_visitor_who_is_not_logged_in(client):
    # As the API's docs are (issue 46): the top bar's Help leads there from the login page too.
    login = client.get("/login/").content.decode()
    assert 'href="/docs/"' in login
    assert client.get("/docs/guides/operator/").status_code == 200


def test_the_index_lists_the_guides_then_the_subsystems_then_the_decisions_by_their_titles(client):
    html = client.get("/docs/").content.decode()
    headings = re.findall(r"<h2>(.*?)</h2>", html)
    assert headings == ["Guides, by role", "How the platform works", "Decisions"]
    listed = re.findall(r'<li><a href="(/docs/[^"]+)">([^<]+)</a>', html)
    assert len(listed) == len(doc_pages())
    assert listed[0] == ("/docs/guides/annotator/", "Guide for annotators")  # the title in the document
    assert (
        "/docs/decisions/0043-operator-point/",
        "0043: The operator marks a label&#x27;s object with one click before Yes, stored with the step",
    ) in listed  # a record's number, where its title has none


def test_a_link_to_a_folder_of_the_docs_leads_to_its_readme_or_its_index(client):
    method = client.get("/docs/method/").content.decode()
    assert 'href="/docs/decisions/"' in method  # the method's `decisions/`
    assert "<h1>Decision records</h1>" in client.get("/docs/decisions/").content.decode()
    guides = client.get("/docs/guides/").content.decode()
    assert re.findall(r"<h2>(.*?)</h2>", guides) == ["Guides, by role"]


def test_a_docs_page_keeps_its_headings_and_shows_raw_html_as_text():
    html = markdown_html("# Title\n\n<script>alert(1)</script>\n", shift=0)
    assert "<h1>Title</h1>" in html and "<script>" not in html
