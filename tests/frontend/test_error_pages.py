"""403, 404 and 405 of the web pages: in the site's layout, saying why, with the way back; /api/ paths
keep answering in the API's JSON error shape."""

from __future__ import annotations

import pytest

from accounts.roles import Role

pytestmark = pytest.mark.django_db


def in_layout(response) -> str:
    html = response.content.decode()
    assert 'class="topbar"' in html and "site.css" in html, html[:300]
    assert 'data-testid="error-page"' in html
    return html


def test_a_role_refused_gets_a_403_page_naming_the_roles(client, users, collection):
    client.force_login(users[Role.ANNOTATOR])
    response = client.post(
        f"/collections/{collection.pk}/review/next/",
        HTTP_REFERER=f"http://testserver/collections/{collection.pk}/",
    )
    assert response.status_code == 403
    html = in_layout(response)
    assert "Your roles (annotator) do not allow reviewing images: it needs the reviewer role." in html
    assert f'href="/collections/{collection.pk}/"' in html and 'data-testid="error-back"' in html
    assert 'href="/"' in html


def test_a_missing_object_gets_a_404_page_that_names_it(client, users, collection):
    client.force_login(users[Role.ANNOTATOR])
    response = client.get("/images/987654/")
    assert response.status_code == 404
    html = in_layout(response)
    assert "There is no image 987654, or you are not a member of its collection." in html
    assert 'data-testid="error-home"' in html


def test_an_unknown_address_gets_a_404_page(client, users):
    client.force_login(users[Role.ANNOTATOR])
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "There is no page at /no/such/page/." in in_layout(response)


def test_a_get_of_a_post_only_address_gets_a_405_page(client, users, collection):
    client.force_login(users[Role.ANNOTATOR])
    for path in ("/logout/", f"/collections/{collection.pk}/annotate/next/"):
        response = client.get(path)
        assert response.status_code == 405, path
        assert "POST" in response["Allow"]
        html = in_layout(response)
        assert f"{path} does not answer a GET request (it takes POST)." in html and "use that button" in html


def test_api_paths_keep_their_json_errors(client, users):
    client.force_login(users[Role.ANNOTATOR])
    missing = client.get("/api/v1/no-such-endpoint/")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    refused = client.get("/api/v1/collections/1/imports/")  # annotators may not list imports
    assert refused.status_code in (403, 404) and "code" in refused.json()
    wrong_method = client.delete("/api/v1/vocabularies/")
    assert wrong_method.status_code == 405 and wrong_method.json()["code"] == "method_not_allowed"
