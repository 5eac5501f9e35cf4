"""The platform's files in a real SeaweedFS (issue 49): `bucket` points the default storage at a prefix
of its own in the local store's bucket, which `scripts/ensure_seaweedfs.sh` starts when it is down
(`make test` starts it before the tests), and empties it afterwards."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import boto3
import pytest

ROOT = Path(__file__).resolve().parents[1]
# The local store as ensure_seaweedfs.sh starts it (its defaults), unless the environment names another.
ENDPOINT = os.environ.get("S3_ENDPOINT_URL") or "http://127.0.0.1:8333"
BUCKET = os.environ.get("S3_BUCKET") or "vtt"
ACCESS_KEY = os.environ.get("S3_ACCESS_KEY_ID") or "vtt-local"
SECRET_KEY = os.environ.get("S3_SECRET_ACCESS_KEY") or "vtt-local-secret"
_started: list[bool] = []


def seaweedfs_ensure() -> None:
    """Once per process: the local SeaweedFS answers (started if it did not), with the bucket."""
    if _started:
        return
    environment = {
        **os.environ,
        "S3_ENDPOINT_URL": ENDPOINT,
        "S3_BUCKET": BUCKET,
        "S3_ACCESS_KEY_ID": ACCESS_KEY,
        "S3_SECRET_ACCESS_KEY": SECRET_KEY,
    }
    subprocess.run([str(ROOT / "scripts" / "ensure_seaweedfs.sh")], check=True, env=environment, cwd=ROOT)
    _started.append(True)


def s3_environment(prefix: str) -> dict[str, str]:
    """The variables that point a process of the platform at the test's prefix of the bucket."""
    return {
        "MEDIA_STORAGE": "s3",
        "S3_ENDPOINT_URL": ENDPOINT,
        "S3_BUCKET": BUCKET,
        "S3_PREFIX": prefix,
        "S3_ACCESS_KEY_ID": ACCESS_KEY,
        "S3_SECRET_ACCESS_KEY": SECRET_KEY,
    }


def bucket_options(location: str, **overrides) -> dict:
    return {
        "BACKEND": "vtt_site.bucket.BucketStorage",
        "OPTIONS": {
            "bucket_name": BUCKET,
            "endpoint_url": ENDPOINT,
            "region_name": "us-east-1",
            "access_key": ACCESS_KEY,
            "secret_key": SECRET_KEY,
            "location": location,
            "querystring_expire": 300,
            "timeout": 5.0,
            **overrides,
        },
    }


@pytest.fixture
def bucket(settings):
    """The default storage is a prefix of the local SeaweedFS's bucket for this test; yields the
    prefix. Ask for it before any fixture that writes files."""
    seaweedfs_ensure()
    location = f"test-{uuid.uuid4().hex[:12]}"
    settings.STORAGES = {**settings.STORAGES, "default": bucket_options(location)}
    settings.S3_STORAGE_OPTIONS = bucket_options(location)["OPTIONS"]
    settings.S3_STREAM_IMAGES = False
    yield location
    client = boto3.client(
        "s3",
        endpoint_url=ENDPOINT,
        region_name="us-east-1",
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
    )
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=f"{location}/"):
        keys = [{"Key": item["Key"]} for item in page.get("Contents", [])]
        if keys:
            client.delete_objects(Bucket=BUCKET, Delete={"Objects": keys})
