from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotations.models import Split
from annotations.services.imports import import_create, import_run
from annotations.synthetic.scenes import generate_scenes
from tests.factories import CollectionFactory


def import_scenes(collection, scenes, *, split=Split.TRAIN, mark_reviewed=True):
    payload = "".join(json.dumps(s) + "\n" for s in scenes).encode()
    job = import_create(
        collection=collection,
        format="jsonl",
        file=SimpleUploadedFile("s.jsonl", payload),
        split=split,
        mark_reviewed=mark_reviewed,
        start=False,
    )
    job = import_run(job_id=job.pk)
    assert job.status == "done", job.errors
    return job


@pytest.fixture
def training_scenes():
    return list(generate_scenes(60, seed=41))


@pytest.fixture
def trained_collection(db, training_scenes):
    """60 reviewed training scenes, 5 reviewed test scenes and 4 training scenes still in review."""
    collection = CollectionFactory()
    import_scenes(collection, training_scenes)
    import_scenes(collection, generate_scenes(5, seed=42, prefix="test"), split=Split.TEST)
    import_scenes(collection, generate_scenes(4, seed=43, prefix="pending"), mark_reviewed=False)
    return collection
