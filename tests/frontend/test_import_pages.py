"""The import form with a mapping file and the source's completeness, and the import page's report of
what the mapping did (issue 21); a re-import's plan and the choice on its page (issue 37)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.roles import Role
from annotations.models import Image, Stage
from datasets.formats import jsonl_line
from datasets.models import ImportJob
from tests.datasets.formats import FIXTURES, MAPPING, zipped
from tests.datasets.test_import_export import record
from tests.datasets.test_reimport import start

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


# --- A re-import shows what it would change and waits for a choice (issue 37, decision 0071) ------------------


def accepted_then_changed(collection, users) -> str:
    """Two accepted images; a file that changes both and creates one."""
    text = "".join(jsonl_line(record(name)) for name in ("a.jpg", "b.jpg"))
    start(collection, text, mark_reviewed=True, created_by=users[Role.REVIEWER])
    moved = record(relationships=[]) | {"objects": [record()["objects"][0]]}
    return "".join(jsonl_line(moved | {"image": name}) for name in ("a.jpg", "b.jpg", "c.jpg"))


def import_by_form(client, collection, text, django_capture_on_commit_callbacks, **fields) -> ImportJob:
    data = {"file": SimpleUploadedFile("again.jsonl", text.encode()), "format": "jsonl", "split": "train"}
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/collections/{collection.pk}/import/", data | fields)
    return ImportJob.objects.latest("pk")


def test_a_reimport_from_the_form_shows_its_plan_and_going_on_keeps_the_accepted_images(
    client, users, collection, django_capture_on_commit_callbacks
):
    text = accepted_then_changed(collection, users)
    client.force_login(users[Role.REVIEWER])
    job = import_by_form(client, collection, text, django_capture_on_commit_callbacks)
    assert job.status == "previewed"
    page = client.get(f"/imports/{job.pk}/").content.decode()
    assert 'data-finished="true"' in page  # nothing to poll for while it waits for a person
    plan = page.split('data-testid="import-plan"')[1]
    assert not plan.lstrip().startswith("hidden")
    assert "would replace the annotations of 2 existing images, 2 of them accepted" in plan
    for role, count in (("created", 1), ("changed", 2), ("accepted", 2), ("unchanged", 0)):
        assert f'data-role="plan-{role}">{count}</td>' in plan
    assert "Accepted images it would change: a.jpg, b.jpg." in plan
    assert 'value="keep" data-role="keep">Go on, keep the accepted images as they are</button>' in plan
    assert 'value="replace" class="danger" data-role="replace" >' in plan  # shown: accepted ones change
    assert set(Image.objects.values_list("stage", flat=True)) == {Stage.ACCEPTED}
    listed = client.get(f"/collections/{collection.pk}/").content.decode()
    assert "waiting for a choice: would create 1, change 2 (2 accepted)" in listed

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/imports/{job.pk}/confirm/", {"accepted": "keep"})
    assert response["Location"] == f"/imports/{job.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert "Imported: 1 image created, 0 changed, 0 unchanged; 2 accepted images kept as they were." in page
    assert dict(Image.objects.values_list("original_name", "stage")) == {
        "a.jpg": Stage.ACCEPTED,
        "b.jpg": Stage.ACCEPTED,
        "c.jpg": Stage.REVIEW,
    }
    listed = client.get(f"/collections/{collection.pk}/").content.decode()
    assert "1 new, 0 changed, 0 unchanged, 2 accepted kept" in listed


def test_the_page_cancels_a_previewed_import_and_says_why_a_choice_was_refused(
    client, users, collection, django_capture_on_commit_callbacks
):
    text = accepted_then_changed(collection, users)
    client.force_login(users[Role.REVIEWER])
    job = import_by_form(client, collection, text, django_capture_on_commit_callbacks)
    page = client.post(f"/imports/{job.pk}/confirm/", {"accepted": "all"}, follow=True).content.decode()
    assert "Say what becomes of the accepted images the import would change" in page
    assert ImportJob.objects.get(pk=job.pk).status == "previewed"
    page = client.post(f"/imports/{job.pk}/cancel/", follow=True).content.decode()
    assert "Cancelled after the preview: nothing was imported." in page
    page = client.post(f"/imports/{job.pk}/confirm/", {"accepted": "keep"}, follow=True).content.decode()
    assert "This import is cancelled, not waiting for a choice" in page
    assert not Image.objects.filter(original_name="c.jpg").exists()
    client.force_login(users[Role.ANNOTATOR])
    assert client.post(f"/imports/{job.pk}/cancel/").status_code == 403


def test_the_form_takes_the_choice_and_a_preview(
    client, users, collection, django_capture_on_commit_callbacks
):
    text = accepted_then_changed(collection, users)
    client.force_login(users[Role.REVIEWER])
    page = client.get(f"/collections/{collection.pk}/").content.decode()
    assert (
        '<option value="replace">replace their annotations too</option>' in page and 'name="preview"' in page
    )
    replaced = import_by_form(
        client, collection, text, django_capture_on_commit_callbacks, accepted="replace"
    )
    assert (replaced.status, replaced.images_updated, replaced.images_kept) == ("done", 2, 0)
    previewed = import_by_form(client, collection, text, django_capture_on_commit_callbacks, preview="on")
    assert (previewed.status, previewed.plan["unchanged"]) == ("previewed", 3)
    page = client.get(f"/imports/{previewed.pk}/").content.decode()
    assert 'data-role="keep">Go on</button>' in page
    assert 'data-role="replace" hidden>' in page  # no accepted image changes: nothing to replace
