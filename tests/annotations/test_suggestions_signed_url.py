"""The signed image URL, the only address a model server is sent (decision 0078): it serves the pixels
without a login while it is valid, and nothing once expired or tampered with."""

from __future__ import annotations

import pytest
from django.core import signing

from annotations.services.images import image_upload
from annotations.suggestions.signing import image_token, signed_image_url
from tests.annotations.images import image_bytes, upload
from tests.factories import ImageFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def image(collection):
    return image_upload(collection=collection, files=[upload("a.png", image_bytes())]).created[0]


def path_of(token: str) -> str:
    return f"/api/v1/signed/images/{token}/"


def test_a_signed_url_serves_the_pixels_to_anyone_and_is_absolute_on_the_sites_address(
    client, image, settings
):
    settings.SITE_URL = "https://vtt.example.org/"
    url = signed_image_url(image.pk)
    assert url.startswith("https://vtt.example.org/api/v1/signed/images/")
    response = client.get(url.removeprefix("https://vtt.example.org"))  # no login
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    with image.file.open("rb") as handle:
        assert b"".join(response.streaming_content) == handle.read()
    assert response["Cache-Control"] == "private, no-store"


def test_an_expired_url_is_a_403_in_the_error_shape(client, image, settings, monkeypatch):
    token = image_token(image.pk)
    settings.SUGGESTIONS_URL_SECONDS = 600
    real = signing.time.time
    monkeypatch.setattr(signing.time, "time", lambda: real() + 601)
    response = client.get(path_of(token))
    assert response.status_code == 403
    assert response.json()["code"] == "signed_url_expired" and response.json()["fields"] == {}
    monkeypatch.setattr(signing.time, "time", lambda: real() + 590)
    assert client.get(path_of(token)).status_code == 200


def test_a_tampered_or_foreign_token_is_a_404(client, image, collection):
    token = image_token(image.pk)
    other = image_upload(
        collection=collection, files=[upload("b.png", image_bytes(color=(9, 9, 9)))]
    ).created[0]
    forged = image_token(other.pk).split(":")[0] + ":" + token.split(":", 1)[1]  # another id, this signature
    for bad in [
        forged,
        token[:-1] + ("A" if token[-1] != "A" else "B"),
        signing.dumps(image.pk),  # signed by the site, for another purpose (salt)
        signing.dumps(image.pk, salt="annotations.suggestions.image-url", key="not the site's key"),
        "nonsense",
    ]:
        response = client.get(path_of(bad))
        assert response.status_code == 404, bad
        assert response.json()["code"] == "signed_url_invalid"


def test_an_image_without_pixels_or_deleted_is_a_404(client, image, collection):
    bare = ImageFactory(collection=collection)
    assert client.get(path_of(image_token(bare.pk))).json()["code"] == "signed_url_invalid"
    token = image_token(image.pk)
    image.delete()
    assert client.get(path_of(token)).status_code == 404


def test_only_get_is_served(client, image):
    assert client.post(path_of(image_token(image.pk))).status_code == 405
