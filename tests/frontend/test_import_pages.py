"""The import form with a mapping file and the source's completeness, and the import page's report of
what the mapping did (issue 21)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.roles import Role
from annotations.models import Image, ImportJob, Stage
from tests.annotations.formats import FIXTURES, MAPPING, zipped

pytestmark = pytest.mark.django_db


def form(**fields):
    return {
        "file": SimpleUploadedFile("vg.zip", zipped(FIXTURES / "vg" / "scene_graphs")),
        "format": "vg",
        "split": "train",
        **fields,
    }


def test_a_visual_genome_import_with_its_mapping_shows_what_the_mapping_did(
    client, users, collection, django_capture_on_commit_callbacks
):
    client.force_login(users[Role.REVIEWER])
    mapping = SimpleUploadedFile("mapping.yaml", MAPPING.read_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/collections/{collection.pk}/import/", form(mapping=mapping))
    job = ImportJob.objects.get()
    assert response["Location"] == f"/imports/{job.pk}/"
    page = client.get(f"/imports/{job.pk}/").content.decode()
    assert "as drafts to complete in the annotation queue." in page
    assert (
        'data-testid="import-report"' in page
        and "hidden" not in page.split('data-testid="import-report"')[1][:20]
    )
    assert "<td>mapped: objects to person</td><td>5</td>" in page
    assert "man (1), woman (1), guy (1), mädchen (1), 行人 (1)" in page
    assert "<td>dropped: boxes outside the image</td><td>1</td>" in page
    assert set(Image.objects.values_list("stage", flat=True)) == {Stage.ANNOTATE}


def test_the_source_said_complete_on_the_form_sends_the_images_to_review(
    client, users, collection, django_capture_on_commit_callbacks
):
    client.force_login(users[Role.REVIEWER])
    mapping = SimpleUploadedFile("mapping.yaml", MAPPING.read_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/collections/{collection.pk}/import/", form(mapping=mapping, complete="yes"))
    page = client.get(f"/imports/{ImportJob.objects.get().pk}/").content.decode()
    assert ", to review." in page
    assert set(Image.objects.values_list("stage", flat=True)) == {Stage.REVIEW}


def test_a_mapping_with_problems_is_said_on_the_collection_page_and_nothing_is_stored(
    client, users, collection
):
    client.force_login(users[Role.REVIEWER])
    mapping = SimpleUploadedFile("mapping.yaml", b"types:\n  dog: {names: [dog]}\n")
    response = client.post(f"/collections/{collection.pk}/import/", form(mapping=mapping), follow=True)
    page = response.content.decode()
    assert "The mapping file has 1 problem; nothing was imported." in page
    assert "types.dog: &#x27;dog&#x27; is not a type of the vocabulary (person, vehicle)" in page
    assert not ImportJob.objects.exists()


def test_the_import_form_offers_the_mapping_and_the_source(client, users, collection):
    client.force_login(users[Role.REVIEWER])
    page = client.get(f"/collections/{collection.pk}/").content.decode()
    assert 'name="mapping"' in page and 'name="complete"' in page
    assert '<option value="no">not complete: drafts to annotate</option>' in page
    assert "Visual Genome: a zip of image_data.json" in page
