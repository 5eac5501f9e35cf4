"""Issue 49, item 3: with the files in a bucket, a vision system gets an image it has reached through a
short-lived presigned URL of the store, issued after the same checks as the bytes were; never one for an
image its session has not reached, never a key that names the image, never the store's secret."""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

import httpx
import pytest

from accounts.roles import Role
from tests.evaluation.test_sessions import enrol
from tests.storage_fixtures import BUCKET, ENDPOINT, SECRET_KEY, bucket_options

pytestmark = pytest.mark.django_db


def first_image_url(client, session_id) -> str:
    return client.get(f"/api/v1/evaluation/sessions/{session_id}/question/").json()["current"]["image"]["url"]


def test_a_reached_image_is_a_presigned_url_whose_key_tells_nothing(
    bucket, published_test, system_token, token_client, make_user, api
):
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    response = client.get(first_image_url(client, session_id))
    assert response.status_code == 302, response.content
    location = response["Location"]
    assert location.startswith(f"{ENDPOINT}/{BUCKET}/")
    # The key: the test's prefix, then images/ and 32 random hex digits; not the file's name
    # ("secret-name-0.png"), its collection or its pixels' hash.
    assert re.fullmatch(rf"/{BUCKET}/{bucket}/images/[0-9a-f]{{32}}\.png", urlsplit(location).path), location
    assert (
        "secret-name" not in location
        and f"/{published_test.test_images.first().image.collection_id}/" not in location
    )
    assert SECRET_KEY not in location and SECRET_KEY not in str(response.headers)
    fetched = httpx.get(location)
    assert fetched.status_code == 200 and fetched.content[:4] == b"\x89PNG"
    assert fetched.headers["content-type"] == "image/png"

    later = published_test.test_images.order_by("position").last().pk
    refused = client.get(f"/api/v1/evaluation/sessions/{session_id}/images/{later}/")
    assert refused.status_code == 404 and refused.json()["code"] == "image_not_available"
    assert "Location" not in refused and BUCKET not in refused.content.decode()
    stranger = api.as_user(make_user(Role.VISION_SYSTEM_OWNER, username="stranger"))
    assert stranger.get(first_image_url(client, session_id)).status_code == 404


def test_a_presigned_url_that_expired_is_refused_by_the_store(
    bucket, settings, published_test, system_token, token_client
):
    settings.STORAGES = {**settings.STORAGES, "default": bucket_options(bucket, querystring_expire=3)}
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    location = client.get(first_image_url(client, session_id))["Location"]
    assert httpx.get(location).status_code == 200
    time.sleep(4.2)  # the signing time is in whole seconds: 3 s of validity, then past it
    assert httpx.get(location).status_code == 403
    again = client.get(first_image_url(client, session_id))["Location"]  # a fresh one for the asking
    assert httpx.get(again).status_code == 200


def test_a_store_clients_cannot_reach_streams_the_images_through_the_platform(
    bucket, settings, published_test, system_token, token_client
):
    settings.S3_STREAM_IMAGES = True
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    response = client.get(first_image_url(client, session_id))
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert b"".join(response.streaming_content)[:4] == b"\x89PNG"


def test_an_image_whose_key_may_name_it_is_streamed_to_a_system_never_presigned(
    bucket, published_test, system_token, token_client
):
    """A bucket source's image used where it is keeps its own key (`shelf/street-42.png`): a system gets
    its bytes through the platform."""
    from django.core.files.storage import default_storage

    image = published_test.test_images.order_by("position").first().image
    with default_storage.open(image.file.name) as original:
        named = default_storage.save("shelf/street-42.png", original)
    type(image).objects.filter(pk=image.pk).update(file=named)
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    response = client.get(first_image_url(client, session_id))
    assert response.status_code == 200 and "Location" not in response
    assert b"".join(response.streaming_content)[:4] == b"\x89PNG"
