"""Issue 49 in Chromium: with the files in a bucket, a reviewer fills a collection from the bucket on its
page, and the page's thumbnails load from presigned URLs of the store (the Content-Security-Policy
admitting the store's origin for images, as vtt_site.storage_settings makes it)."""

from __future__ import annotations

import boto3
import pytest

from tests.annotations.images import image_bytes
from tests.e2e.conftest import login, shot
from tests.storage_fixtures import ACCESS_KEY, BUCKET, ENDPOINT, SECRET_KEY
from vtt_site.storage_settings import bucket_images_allowed

pytestmark = [pytest.mark.browser]


def test_a_collection_filled_from_a_bucket_shows_its_images_from_the_store(
    bucket, settings, page, team, monkeypatch
):
    collection, members = team
    monkeypatch.setattr("vtt_site.storage_settings.env", _Env())
    settings.CONTENT_SECURITY_POLICY = bucket_images_allowed(settings.CONTENT_SECURITY_POLICY)
    s3 = boto3.client(
        "s3",
        endpoint_url=ENDPOINT,
        region_name="us-east-1",
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
    )
    for number, colour in enumerate([(200, 40, 40), (40, 200, 40)]):
        s3.put_object(
            Bucket=BUCKET, Key=f"{bucket}/street/{number}.png", Body=image_bytes("PNG", (320, 200), colour)
        )
    login(page, members["rita"])
    page.goto(f"/collections/{collection.pk}/#bucket-source")
    page.fill("input[name=bucket]", BUCKET)
    page.fill("input[name=key_prefix]", f"{bucket}/street/")
    page.click("[data-testid=bucket-source-form] button[type=submit]")
    assert page.get_by_text("Bucket source saved").is_visible()
    page.click("[data-testid=bucket-source-sync]")
    assert page.get_by_text("2 image(s) added").is_visible()
    thumbnails = page.locator("img[alt$='.png']")
    thumbnails.first.scroll_into_view_if_needed()
    loaded = "images => images.every(image => image.complete && image.naturalWidth > 0)"
    for _ in range(40):
        if thumbnails.evaluate_all(loaded):
            break
        page.wait_for_timeout(250)
    assert thumbnails.evaluate_all(loaded), "a thumbnail did not load from the store"
    assert thumbnails.count() == 2
    shot(page, "bucket-source")


class _Env:
    """The site's settings as a deployment with the local SeaweedFS would give them."""

    MEDIA_STORAGE = "s3"
    S3_STREAM_IMAGES = False
    S3_PUBLIC_ENDPOINT_URL = ""
    S3_ENDPOINT_URL = ENDPOINT
