"""The API of suggestions from a model (decision 0078): who may connect a model server and read an
image's suggestions, the settings' checks, and what the annotator's page reads, in every state."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.roles import Role
from annotations.models import ModelBackend, Prediction
from annotations.services.suggestions import model_backend_set
from tests.factories import ImageFactory

pytestmark = pytest.mark.django_db

URL = "http://models.example:9090/"


def backend_path(collection) -> str:
    return f"/api/v1/collections/{collection.pk}/model-backend/"


def leased(collection, user, **fields):
    return ImageFactory(
        collection=collection,
        lease_holder=user,
        lease_expires_at=timezone.now() + timedelta(minutes=30),
        **fields,
    )


# --- Connecting a model server ------------------------------------------------------------------------


def test_a_reviewer_connects_changes_and_disconnects_a_model_server(api, collection, reviewer):
    client = api.as_user(reviewer)
    assert client.get(backend_path(collection)).json()["code"] == "model_backend_not_set"
    body = {"url": URL, "auth": "basic", "username": "u", "secret": "pw-123"}
    response = client.put(backend_path(collection), body)
    assert response.status_code == 200, response.content
    shown = response.json()
    assert shown["url"] == URL and shown["secret_set"] is True and shown["secret_problem"] == ""
    assert "secret" not in shown and "pw-123" not in response.content.decode()
    # Left out, the credential is kept; the auth's other fields are cleared with it.
    kept = client.put(backend_path(collection), {"url": URL, "auth": "basic", "username": "v"}).json()
    assert kept["secret_set"] is True and kept["username"] == "v"
    none = client.put(backend_path(collection), {"url": URL}).json()
    assert none["secret_set"] is False and none["auth"] == "none" and none["username"] == ""
    assert client.delete(backend_path(collection)).status_code == 204
    assert client.get(backend_path(collection)).status_code == 404
    assert client.delete(backend_path(collection)).status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "ftp://models.example/"}, "url"),
        ({"url": "file:///etc/passwd"}, "url"),
        ({"url": "models.example:9090"}, "url"),
        ({"url": "http://user:pw@models.example/"}, "url"),
        ({"url": "http://models.example/?key=1"}, "url"),
        ({"url": URL, "auth": "basic", "secret": "pw"}, "username"),
        ({"url": URL, "auth": "basic", "username": "u"}, "secret"),
        ({"url": URL, "auth": "header", "header_name": "X Key", "secret": "pw"}, "header_name"),
        ({"url": URL, "auth": "header", "header_name": "Host", "secret": "pw"}, "header_name"),
        ({"url": URL, "auth": "header", "header_name": "X-Key", "secret": "a\r\nX-Evil: 1"}, "secret"),
        ({"url": URL, "auth": "header", "header_name": "X-Key", "secret": "clé"}, "secret"),
        ({"url": URL, "auth": "kerberos"}, "auth"),
    ],
)
def test_bad_settings_are_a_400_on_the_field_and_change_nothing(api, collection, reviewer, body, field):
    response = api.as_user(reviewer).put(backend_path(collection), body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"]
    assert not ModelBackend.objects.exists()


def test_an_annotator_an_operator_and_a_vision_system_owner_may_not_touch_it(api, collection, users):
    model_backend_set(collection=collection, user=None, url=URL)
    for role in (Role.ANNOTATOR, Role.OPERATOR, Role.VISION_SYSTEM_OWNER):
        client = api.as_user(users[role])
        assert client.get(backend_path(collection)).status_code == 403, role
        assert client.put(backend_path(collection), {"url": URL}).status_code == 403, role
        assert client.post(backend_path(collection) + "preannotate/").status_code == 403, role


def test_a_reviewer_of_another_collection_does_not_see_it(api, collection, other_reviewer, make_user):
    from tests.factories import CollectionFactory, MembershipFactory

    model_backend_set(collection=collection, user=None, url=URL)
    stranger = make_user(Role.REVIEWER, username="reviewer-elsewhere")
    MembershipFactory(collection=CollectionFactory(), user=stranger, role="reviewer")
    assert api.as_user(stranger).get(backend_path(collection)).json()["code"] == "collection_not_found"
    assert api.as_user(other_reviewer).get(backend_path(collection)).status_code == 200


def test_pre_annotation_needs_a_server_that_is_switched_on(api, collection, reviewer):
    client = api.as_user(reviewer)
    assert client.post(backend_path(collection) + "preannotate/").json()["code"] == "model_backend_not_set"
    model_backend_set(collection=collection, user=reviewer, url=URL, enabled=False)
    response = client.post(backend_path(collection) + "preannotate/")
    assert response.status_code == 409 and response.json()["code"] == "model_backend_disabled"


# --- An image's suggestions ---------------------------------------------------------------------------


def suggestions(client, image):
    return client.get(f"/api/v1/images/{image.pk}/suggestions/")


def test_without_a_server_the_state_is_off(api, collection, annotator):
    response = suggestions(api.as_user(annotator), leased(collection, annotator))
    assert response.status_code == 200
    assert response.json() == {"state": "off", "note": "", "model_version": "", "suggestions": []}


def test_only_the_lease_holder_a_reviewer_or_an_admin_reads_an_images_suggestions(
    api, collection, users, other_annotator, outsider
):
    image = leased(collection, other_annotator)
    assert suggestions(api.as_user(users[Role.ANNOTATOR]), image).json()["code"] == "lease_not_held"
    assert suggestions(api.as_user(outsider), image).json()["code"] == "image_not_found"
    assert suggestions(api.as_user(users[Role.OPERATOR]), image).status_code == 403
    assert suggestions(api.as_user(users[Role.VISION_SYSTEM_OWNER]), image).status_code == 403
    for role in (Role.REVIEWER, Role.ADMIN):
        assert suggestions(api.as_user(users[role]), image).status_code == 200, role
    assert suggestions(api.as_user(other_annotator), image).status_code == 200


def test_a_vision_systems_token_reaches_none_of_it(api, collection, users, token_client):
    from evaluation.services.systems import system_create, system_token_create

    owner = users[Role.VISION_SYSTEM_OWNER]
    system = system_create(owner=owner, name="looker")
    secret = system_token_create(system=system, name="run")[1]
    model_backend_set(collection=collection, user=None, url=URL)
    image = leased(collection, owner)
    client = token_client(secret)
    for method, path in [
        ("get", backend_path(collection)),
        ("put", backend_path(collection)),
        ("post", backend_path(collection) + "check/"),
        ("post", backend_path(collection) + "preannotate/"),
        ("get", f"/api/v1/images/{image.pk}/suggestions/"),
    ]:
        assert getattr(client, method)(path, {"url": URL}, format="json").status_code == 403, path


def test_stored_suggestions_are_read_in_the_pages_shape_without_asking_the_server(api, collection, annotator):
    model_backend_set(collection=collection, user=None, url="http://127.0.0.1:9/")  # nothing listens there
    image = leased(collection, annotator)
    person = collection.vocabulary.types.get(name="person")
    Prediction.objects.create(
        image=image,
        object_type=person,
        x=1,
        y=2,
        w=3,
        h=4,
        attributes=["male"],
        score=0.4,
        model_version="m2",
    )
    best = Prediction.objects.create(
        image=image, object_type=person, x=5, y=6, w=7, h=8, score=0.9, model_version="m2"
    )
    body = suggestions(api.as_user(annotator), image).json()
    assert body["state"] == "ready" and body["note"] == "" and body["model_version"] == "m2"
    assert body["suggestions"][0] == {
        "id": best.pk,
        "type": "person",
        "bbox": [5.0, 6.0, 7.0, 8.0],
        "attributes": [],
        "score": 0.9,
        "status": "pending",
        "model_version": "m2",
    }
    assert [s["attributes"] for s in body["suggestions"]] == [[], ["male"]]


def test_a_server_that_cannot_be_reached_is_a_note_not_an_error(api, collection, annotator, settings):
    settings.SUGGESTIONS_WAIT_SECONDS = 1.0
    model_backend_set(collection=collection, user=None, url="http://127.0.0.1:9/")
    image = leased(collection, annotator, file="x.png")
    response = suggestions(api.as_user(annotator), image)
    assert response.status_code == 200
    body = response.json()
    assert body["state"] == "unavailable" and body["suggestions"] == []
    assert body["note"].startswith("The model server could not be reached")


def test_an_image_without_pixels_is_unavailable_with_the_reason(api, collection, annotator):
    model_backend_set(collection=collection, user=None, url="http://127.0.0.1:9/")
    body = suggestions(api.as_user(annotator), leased(collection, annotator)).json()
    assert body["state"] == "unavailable" and "has no pixels" in body["note"]


def test_a_server_on_the_same_network_by_a_name_without_a_dot_is_accepted(api, client, collection, users):
    """Django's URL validator refuses `http://ml-backend:9090/`, a docker-compose service's address."""
    from django.urls import reverse

    response = api.as_user(users[Role.REVIEWER]).put(
        backend_path(collection), {"url": "http://ml-backend:9090/"}
    )
    assert response.status_code == 200 and response.json()["url"] == "http://ml-backend:9090/"
    client.force_login(users[Role.ADMIN])
    backend = ModelBackend.objects.get()
    change = reverse("admin:annotations_modelbackend_change", args=[backend.pk])
    page = client.get(change).content.decode()
    assert 'value="http://ml-backend:9090/"' in page and 'type="password"' in page
    form = {
        "address": "http://ml-backend:9091/",
        "auth": "header",
        "header_name": "X-Key",
        # Long enough never to turn up by chance in the encrypted token ("k1" did: a base64 string of
        # 120 characters holds a given pair of characters about once in 30).
        "credential": "a-credential-of-the-admin-form",
    }
    assert client.post(change, form | {"enabled": "on"}).status_code == 302
    backend.refresh_from_db()
    assert (
        backend.url == "http://ml-backend:9091/" and backend.secret and "a-credential" not in backend.secret
    )
    refused = client.post(change, {"address": "ftp://x/", "auth": "none"}).content.decode()
    assert "http:// or https://" in refused
    assert ModelBackend.objects.get().url == "http://ml-backend:9091/"
