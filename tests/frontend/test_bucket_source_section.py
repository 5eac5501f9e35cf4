"""The collection page's bucket source section (issue 49): a reviewer points the collection at a bucket
and prefix and syncs it from the page; a refusal is a message that changes nothing; an annotator sees no
section and is refused."""

from __future__ import annotations

import boto3
import pytest

from accounts.roles import Role
from datasets.models import BucketSource
from tests.annotations.images import image_bytes
from tests.storage_fixtures import ACCESS_KEY, BUCKET, ENDPOINT, SECRET_KEY

pytestmark = pytest.mark.django_db


def test_a_reviewer_fills_the_collection_from_a_bucket_on_its_page(bucket, client, users, collection):
    s3 = boto3.client(
        "s3",
        endpoint_url=ENDPOINT,
        region_name="us-east-1",
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
    )
    s3.put_object(Bucket=BUCKET, Key=f"{bucket}/shelf/one.png", Body=image_bytes("PNG", size=(8, 8)))
    client.force_login(users[Role.REVIEWER])
    page = client.get(f"/collections/{collection.pk}/").content.decode()
    assert 'id="bucket-source"' in page and "Sync now" not in page

    refused = client.post(
        f"/collections/{collection.pk}/bucket-source/",
        {"bucket": "no-such-bucket-here", "key_prefix": "", "split": "train", "copy": "on"},
        follow=True,
    ).content.decode()
    assert "cannot be listed" in refused and not BucketSource.objects.exists()
    assert SECRET_KEY not in refused

    form = {"bucket": BUCKET, "key_prefix": f"{bucket}/shelf/", "split": "test", "copy": "on"}
    saved = client.post(f"/collections/{collection.pk}/bucket-source/", form, follow=True).content.decode()
    assert "Bucket source saved" in saved and f"s3://{BUCKET}/{bucket}/shelf/" in saved
    synced = client.post(f"/collections/{collection.pk}/bucket-source/sync/", follow=True).content.decode()
    assert "1 image(s) added, 0 added before, 0 refused" in synced
    assert collection.images.get().split == "test"

    client.force_login(users[Role.ANNOTATOR])
    assert 'id="bucket-source"' not in client.get(f"/collections/{collection.pk}/").content.decode()
    assert client.post(f"/collections/{collection.pk}/bucket-source/sync/").status_code == 403
