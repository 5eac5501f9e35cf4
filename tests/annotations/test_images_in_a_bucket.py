"""Issue 49, items 1 and 3: with the files in a bucket, an upload lands there under a random key, and
a member's page or a model server gets the pixels (and the thumbnail) through a presigned URL issued
after the same checks as before; nothing of the image is left on the local disk."""

from __future__ import annotations

import httpx
import pytest

from annotations.models import Image
from annotations.suggestions.signing import image_url_for_server
from tests.annotations.images import image_bytes, upload
from tests.storage_fixtures import BUCKET, ENDPOINT

pytestmark = pytest.mark.django_db


def test_an_upload_goes_to_the_bucket_and_members_get_presigned_urls(
    bucket, settings, api, annotator, outsider, collection
):
    data = image_bytes("PNG", size=(64, 48))
    response = api.as_user(annotator).post(
        f"/api/v1/collections/{collection.pk}/images/",
        {"files": [upload("street.png", data)], "split": "train"},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    [created] = response.json()["created"]
    image = Image.objects.get(pk=created["id"])
    assert image.file.name.startswith("images/") and image.file.storage.exists(image.file.name)
    assert not (settings.MEDIA_ROOT / image.file.name).exists() and not settings.MEDIA_ROOT.exists()

    served = api.as_user(annotator).get(created["file_url"])
    assert served.status_code == 302 and served["Location"].startswith(f"{ENDPOINT}/{BUCKET}/{bucket}/")
    assert httpx.get(served["Location"]).content == data
    thumbnail = api.as_user(annotator).get(created["file_url"], {"size": "thumbnail"})
    assert thumbnail.status_code == 302
    fetched = httpx.get(thumbnail["Location"])
    assert fetched.headers["content-type"] == "image/jpeg" and fetched.content[:2] == b"\xff\xd8"
    refused = api.as_user(outsider).get(created["file_url"])
    assert refused.status_code == 404 and "Location" not in refused

    server_url = image_url_for_server(image)  # what a model server is sent
    assert server_url.startswith(f"{ENDPOINT}/{BUCKET}/") and httpx.get(server_url).content == data
