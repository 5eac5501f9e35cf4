"""Issue 49, item 3 of the issue: a collection filled from a bucket (source storage) and exports written
to one (target storage), through the API: the bucket listed and checked, images copied or used where
they are, a second sync adding the new objects and reporting the removed ones; refusals a clear 400."""

from __future__ import annotations

import boto3
import pytest

from tests.annotations.images import image_bytes
from tests.factories import CollectionFactory, MembershipFactory
from tests.storage_fixtures import ACCESS_KEY, BUCKET, ENDPOINT, SECRET_KEY
from vtt_site.storage import is_random_key

pytestmark = pytest.mark.django_db


@pytest.fixture
def s3():
    return boto3.client(
        "s3",
        endpoint_url=ENDPOINT,
        region_name="us-east-1",
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
    )


def put(s3, key: str, data: bytes) -> None:
    s3.put_object(Bucket=BUCKET, Key=key, Body=data)


def test_a_collection_is_filled_from_a_bucket_and_synced_again(
    bucket, s3, api, reviewer, annotator, collection
):
    incoming = f"{bucket}/incoming"
    put(s3, f"{incoming}/a.png", image_bytes("PNG", size=(20, 10), color=(1, 2, 3)))
    put(s3, f"{incoming}/b.jpg", image_bytes("JPEG", size=(10, 20), color=(9, 9, 9)))
    put(s3, f"{incoming}/broken.png", b"not a picture")
    put(s3, f"{incoming}/notes.txt", b"not an image: not listed")
    client = api.as_user(reviewer)
    url = f"/api/v1/collections/{collection.pk}/bucket-source/"

    assert client.get(url).status_code == 404
    response = client.put(url, {"bucket": BUCKET, "prefix": incoming + "/"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["copy"] is True and client.get(url).json()["prefix"] == incoming + "/"
    report = client.post(url + "sync/").json()
    assert (report["listed"], report["added"], report["present"], report["removed"]) == (3, 2, 0, [])
    assert [item["key"] for item in report["refused"]] == [f"{incoming}/broken.png"]
    images = list(collection.images.order_by("original_name"))
    assert [i.original_name for i in images] == ["a.png", "b.jpg"]
    assert all(is_random_key(i.file.name) and i.file.storage.exists(i.file.name) for i in images)

    s3.delete_object(Bucket=BUCKET, Key=f"{incoming}/a.png")
    put(s3, f"{incoming}/c.png", image_bytes("PNG", size=(12, 12), color=(5, 6, 7)))
    report = client.post(url + "sync/").json()
    assert (report["added"], report["present"], report["removed"]) == (1, 1, [f"{incoming}/a.png"])
    assert collection.images.count() == 3, "a removed object's image is reported, not deleted"
    assert api.as_user(annotator).post(url + "sync/").status_code == 403


def test_images_used_where_they_are_only_from_the_platforms_bucket(bucket, s3, api, users, reviewer):
    collection = CollectionFactory()
    MembershipFactory(collection=collection, user=reviewer, role="reviewer")
    put(s3, f"{bucket}/shelf/street-42.png", image_bytes("PNG", size=(16, 16)))
    client = api.as_user(reviewer)
    url = f"/api/v1/collections/{collection.pk}/bucket-source/"
    refused = client.put(url, {"bucket": "somebody-elses", "copy": False}, format="json")
    assert refused.status_code == 400 and list(refused.json()["fields"]) == ["copy"]
    missing = client.put(url, {"bucket": "no-such-bucket-here"}, format="json")
    assert missing.status_code == 400 and "cannot be listed" in missing.json()["message"]
    assert SECRET_KEY not in missing.content.decode() and ACCESS_KEY not in missing.content.decode()

    assert (
        client.put(
            url, {"bucket": BUCKET, "prefix": f"{bucket}/shelf/", "copy": False}, format="json"
        ).status_code
        == 200
    )
    assert client.post(url + "sync/").json()["added"] == 1
    [image] = collection.images.all()
    assert image.file.name == "shelf/street-42.png" and not is_random_key(image.file.name)


def test_an_export_is_written_to_a_bucket(bucket, s3, api, reviewer, collection):
    response = api.as_user(reviewer).post(
        f"/api/v1/collections/{collection.pk}/export/jsonl/bucket/",
        {"bucket": BUCKET, "key": f"{bucket}/exports/all.jsonl"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["key"] == f"{bucket}/exports/all.jsonl"
    body = s3.get_object(Bucket=BUCKET, Key=f"{bucket}/exports/all.jsonl")["Body"].read()
    assert len(body) == response.json()["bytes"]


def test_a_sync_makes_one_client_for_all_its_objects(bucket, s3, api, reviewer, collection, monkeypatch):
    """A boto3 client costs 0.1 to 0.3 s of CPU to make: a sync made one per object it read."""
    from vtt_site import storage_move
    from vtt_site.cache import BoundedCache

    made = []
    real = storage_move.bucket_storage
    monkeypatch.setattr(storage_move, "bucket_storage", lambda: made.append(1) or real())
    monkeypatch.setattr(storage_move, "_clients", BoundedCache(size=4))
    for n, name in enumerate("abcd"):
        put(s3, f"{bucket}/many/{name}.png", image_bytes("PNG", size=(8 + n, 9), color=(40 * n, 7, 9)))
    client = api.as_user(reviewer)
    url = f"/api/v1/collections/{collection.pk}/bucket-source/"
    assert client.put(url, {"bucket": BUCKET, "prefix": f"{bucket}/many/"}, format="json").status_code == 200
    assert client.post(url + "sync/").json()["added"] == 4
    assert client.post(url + "sync/").json()["present"] == 4
    assert len(made) == 1, f"{len(made)} clients made for two syncs of four objects"
