"""Collections and members: admins create and manage them; members see only their own collections."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from accounts.roles import Role
from tests.factories import CollectionFactory, VocabularyFactory

pytestmark = pytest.mark.django_db


def test_admin_creates_a_collection_and_manages_its_members(api, users):
    vocabulary = VocabularyFactory()
    admin = api.as_user(users[Role.ADMIN])
    created = admin.post(
        "/api/v1/collections/", {"name": "Athens", "vocabulary": vocabulary.pk}, format="json"
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["vocabulary"] == {"id": vocabulary.pk, "name": vocabulary.name, "version": 1}
    assert body["progress"]["total"] == 0
    clash = admin.post("/api/v1/collections/", {"name": "Athens", "vocabulary": vocabulary.pk}, format="json")
    assert clash.status_code == 409
    assert clash.json()["code"] == "collection_name_taken"

    members = f"/api/v1/collections/{body['id']}/members/"
    annotator = users[Role.ANNOTATOR]
    assert admin.post(members, {"user": annotator.pk, "role": "annotator"}, format="json").status_code == 201
    assert admin.post(members, {"user": annotator.pk, "role": "reviewer"}, format="json").status_code == 200
    listed = api.as_user(annotator).get(members).json()["results"]
    assert [(m["user"]["username"], m["role"]) for m in listed] == [(annotator.username, "reviewer")]
    admin = api.as_user(users[Role.ADMIN])  # one client: log the admin in again
    unknown = admin.post(members, {"user": 999999, "role": "annotator"}, format="json")
    assert unknown.status_code == 404
    assert unknown.json()["code"] == "user_not_found"
    assert admin.delete(f"{members}{annotator.pk}/").status_code == 204
    assert admin.delete(f"{members}{annotator.pk}/").status_code == 404


def test_members_see_only_their_collections(api, users, collection):
    CollectionFactory(name="someone else's")
    names = [
        c["name"] for c in api.as_user(users[Role.ANNOTATOR]).get("/api/v1/collections/").json()["results"]
    ]
    assert names == [collection.name]
    everything = api.as_user(users[Role.ADMIN]).get("/api/v1/collections/").json()["results"]
    assert len(everything) == 2


def test_a_collection_of_an_unknown_vocabulary_is_a_404(api, users):
    response = api.as_user(users[Role.ADMIN]).post(
        "/api/v1/collections/", {"name": "x", "vocabulary": 424242}, format="json"
    )
    assert response.status_code == 404
    assert response.json()["code"] == "vocabulary_not_found"


def test_the_guide_says_how_to_make_people_members_and_its_way_lets_them_in(api, client, users):
    """docs/guides/your-own-data.md, section 2: a reviewer who is not a member of a new collection gets
    404s; the guide's step, followed as written, lets them in (issue 37)."""
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guides" / "your-own-data.md").read_text()
    section = guide.split("## 2.")[1].split("## 3.")[0]
    assert all(role in section for role in ("annotator", "reviewer", "operator"))
    call = re.search(r"POST (/api/v1/collections/\{id\}/members/)\s+(\{.*\})", section)
    assert call is not None, "section 2 gives the API call that adds a member"
    reviewer, admin = users[Role.REVIEWER], users[Role.ADMIN]
    collection = CollectionFactory()
    url = f"/api/v1/collections/{collection.pk}/"
    assert api.as_user(reviewer).get(url).status_code == 404

    body = json.loads(call.group(2).replace("USER_ID", str(reviewer.pk)))
    added = api.as_user(admin).post(call.group(1).replace("{id}", str(collection.pk)), body, format="json")
    assert added.status_code == 201, added.content
    assert api.as_user(reviewer).get(url).status_code == 200
    assert api.as_user(reviewer).get(f"{url}imports/").status_code == 200
    # The Django admin's way, as the guide names it: the collection's page lists its memberships.
    assert "Collection memberships" in section
    client.force_login(admin)
    page = client.get(f"/admin/annotations/collection/{collection.pk}/change/").content.decode()
    assert "Collection memberships" in page and reviewer.username in page
