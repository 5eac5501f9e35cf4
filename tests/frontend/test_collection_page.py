"""The collection page: scope (404 for outsiders, login for the anonymous), the filtered and paginated
image list, the upload form's per-file results, and the import form and its progress page."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.timezone import now

from accounts.roles import Role
from annotations.models import Image, Stage
from datasets.models import ImportJob
from tests.annotations.images import image_bytes, zip_bytes
from tests.factories import ImageFactory

pytestmark = pytest.mark.django_db


def as_user(client, users, role):
    client.force_login(users[role])
    return client


def test_anonymous_is_sent_to_the_login_page(client, collection):
    for path in (f"/collections/{collection.pk}/", "/imports/1/", "/images/1/", "/images/1/annotate/"):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/login/?next=")


def test_a_non_member_gets_404_everywhere(client, users, collection, make_user):
    image = ImageFactory(collection=collection)
    job = ImportJob.objects.create(collection=collection, format="jsonl", file="imports/x.jsonl")
    client.force_login(make_user(Role.REVIEWER, username="outsider"))
    for path in (
        f"/collections/{collection.pk}/",
        f"/images/{image.pk}/",
        f"/images/{image.pk}/annotate/",
        f"/imports/{job.pk}/",
    ):
        assert client.get(path).status_code == 404, path
    for path in (
        f"/collections/{collection.pk}/annotate/next/",
        f"/collections/{collection.pk}/review/next/",
        f"/collections/{collection.pk}/upload/",
        f"/collections/{collection.pk}/import/",
    ):
        assert client.post(path).status_code == 404, path


def test_image_list_filters_by_stage_and_split_and_paginates(client, users, collection):
    ImageFactory.create_batch(50, collection=collection)
    reviewed = ImageFactory(collection=collection, stage=Stage.REVIEW, original_name="waiting.png")
    ImageFactory(collection=collection, split="test", original_name="held-out.png")
    client = as_user(client, users, Role.ANNOTATOR)

    first = client.get(f"/collections/{collection.pk}/").content.decode()
    assert "52 images, page 1 of 2." in first and first.count('data-testid="image-') == 48
    second = client.get(f"/collections/{collection.pk}/?page=2").content.decode()
    assert second.count('data-testid="image-') == 4
    in_review = client.get(f"/collections/{collection.pk}/?stage=review").content.decode()
    assert in_review.count('data-testid="image-') == 1 and f'data-testid="image-{reviewed.pk}"' in in_review
    test_split = client.get(f"/collections/{collection.pk}/?split=test").content.decode()
    assert "held-out.png" in test_split and test_split.count('data-testid="image-') == 1
    # An image without pixels (imported) gets no thumbnail request, an uploaded one its file endpoint.
    assert "no pixels" in test_split and "/file/" not in test_split


def test_image_list_filters_new_images_and_file_names_and_jumps_to_a_page(client, users, collection):
    ImageFactory.create_batch(100, collection=collection)
    annotated = ImageFactory(collection=collection, original_name="Street-Corner.png", annotated_at=now())
    returned = ImageFactory(collection=collection, original_name="street-returned.png", returned=True)
    ImageFactory(collection=collection, stage=Stage.REVIEW, original_name="street-waiting.png")
    client = as_user(client, users, Role.ANNOTATOR)
    url = f"/collections/{collection.pk}/"

    new = client.get(url, {"stage": "new"}).content.decode()
    assert '<option value="new" selected>new</option>' in new
    assert "100 images, page 1 of 3." in new
    assert (
        f'data-testid="image-{annotated.pk}"' not in new and f'data-testid="image-{returned.pk}"' not in new
    )
    by_name = client.get(url, {"name": "STREET"}).content.decode()
    assert "3 images." in by_name and "street-waiting.png" in by_name and "image-0" not in by_name
    both = client.get(url, {"name": "street", "stage": "new"}).content.decode()
    assert "No image matches these filters." in both
    # Jumping to a page keeps the filters: the form carries them as hidden fields.
    third = client.get(url, {"stage": "new", "page": "3"}).content.decode()
    assert "page 3 of 3" in third and third.count('data-testid="image-') == 4
    jump = third[third.index('data-testid="jump-to-page"') :]
    jump = jump[: jump.index("</form>")]
    assert '<input type="hidden" name="stage" value="new">' in jump
    assert 'name="page" min="1" max="3" value="3"' in jump and "<label" in jump


def test_the_image_api_filters_new_images_and_file_names(client, users, collection):
    fresh = ImageFactory(collection=collection, original_name="a-fresh.png")
    ImageFactory(collection=collection, original_name="b-fresh.png", annotated_at=now())
    client = as_user(client, users, Role.ANNOTATOR)
    url = f"/api/v1/collections/{collection.pk}/images/"
    listed = client.get(url, {"stage": "new", "name": "FRESH"}).json()
    assert [image["id"] for image in listed["results"]] == [fresh.pk]
    assert client.get(url, {"stage": "brand-new"}).status_code == 400


def test_upload_reports_each_file_once_and_the_good_ones_go_in(client, users, collection):
    client = as_user(client, users, Role.ANNOTATOR)
    files = [
        SimpleUploadedFile("one.png", image_bytes("PNG", color=(1, 2, 3))),
        SimpleUploadedFile("broken.jpg", b"\xff\xd8 not really"),
        SimpleUploadedFile("more.zip", zip_bytes({"two.webp": image_bytes("WEBP", color=(9, 9, 9))})),
    ]
    response = client.post(f"/collections/{collection.pk}/upload/", {"files": files, "split": "train"})
    assert response.status_code == 302 and response["Location"].endswith(
        f"/collections/{collection.pk}/#upload"
    )

    page = client.get(f"/collections/{collection.pk}/").content.decode()
    assert "2 images went in, 1 file refused." in page
    assert 'data-file="broken.jpg"' in page and "refused: broken.jpg: This is not an image file" in page
    assert sorted(Image.objects.values_list("original_name", flat=True)) == ["one.png", "two.webp"]
    assert "Upload result" not in client.get(f"/collections/{collection.pk}/").content.decode()  # shown once


def test_upload_without_files_says_so(client, users, collection):
    client = as_user(client, users, Role.ANNOTATOR)
    response = client.post(f"/collections/{collection.pk}/upload/", {"split": "train"}, follow=True)
    assert "Choose at least one image or zip file" in response.content.decode()


def test_roles_without_the_operation_are_refused(client, users, collection):
    operator = as_user(client, users, Role.OPERATOR)
    upload = {"files": [SimpleUploadedFile("x.png", image_bytes())], "split": "train"}
    assert operator.post(f"/collections/{collection.pk}/upload/", upload).status_code == 403
    annotator = as_user(client, users, Role.ANNOTATOR)
    page = annotator.get(f"/collections/{collection.pk}/").content.decode()
    assert 'id="import"' not in page and 'id="upload"' in page
    data = {"file": SimpleUploadedFile("s.jsonl", b"{}"), "format": "jsonl", "split": "train"}
    assert annotator.post(f"/collections/{collection.pk}/import/", data).status_code == 403
    assert not ImportJob.objects.exists()


def scene(name: str, **changes) -> str:
    record = {
        "image": name,
        "width": 640,
        "height": 480,
        "objects": [{"id": "o1", "type": "person", "bbox": [10, 10, 40, 90], "attributes": ["adult"]}],
        "relationships": [],
    }
    return json.dumps(record | changes)


def test_import_form_runs_the_job_and_shows_its_result(
    client, users, collection, django_capture_on_commit_callbacks
):
    client = as_user(client, users, Role.REVIEWER)
    data = {
        "file": SimpleUploadedFile("scenes.jsonl", (scene("a.jpg") + "\n" + scene("b.jpg")).encode()),
        "format": "jsonl",
        "split": "test",
        "mark_reviewed": "on",
    }
    with django_capture_on_commit_callbacks(execute=True):  # the job starts when the request commits
        response = client.post(f"/collections/{collection.pk}/import/", data)
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/imports/{job.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert "Imported: 2 images created, 0 changed, 0 unchanged." in page and 'data-finished="true"' in page
    assert set(Image.objects.values_list("stage", "split")) == {(Stage.ACCEPTED, "test")}
    # The job can be found again from the collection page, and through the API.
    listed = client.get(f"/collections/{collection.pk}/").content.decode()
    assert f'href="/imports/{job.pk}/"' in listed and "scenes.jsonl" in listed
    jobs = client.get(f"/api/v1/collections/{collection.pk}/imports/").json()
    assert jobs["count"] == 1 and jobs["results"][0]["status"] == "done"


def test_an_import_the_task_queue_did_not_take_says_on_its_page_that_it_waits(
    client, users, collection, django_capture_on_commit_callbacks, monkeypatch
):
    from datasets import tasks
    from vtt_site.jobs import NOT_QUEUED

    def broker_down(*args, **kwargs):
        raise OSError("Connection refused")

    monkeypatch.setattr(tasks.import_run, "delay", broker_down)
    client = as_user(client, users, Role.REVIEWER)
    data = {
        "file": SimpleUploadedFile("s.jsonl", scene("a.jpg").encode()),
        "format": "jsonl",
        "split": "train",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/collections/{collection.pk}/import/", data)
    assert response.status_code == 302  # the upload is kept; the job waits for the queue
    page = client.get(response["Location"]).content.decode()
    assert NOT_QUEUED in page and 'data-finished="false"' in page
    job = client.get(f"/api/v1/imports/{ImportJob.objects.get().pk}/").json()
    assert (job["status"], job["message"]) == ("queued", NOT_QUEUED)


def test_import_of_a_bad_file_lists_every_bad_line_and_imports_nothing(
    client, users, collection, django_capture_on_commit_callbacks
):
    client = as_user(client, users, Role.REVIEWER)
    lines = [scene("a.jpg"), "[1, 2", scene("c.jpg", width=0)]
    data = {
        "file": SimpleUploadedFile("bad.jsonl", "\n".join(lines).encode()),
        "format": "jsonl",
        "split": "train",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/collections/{collection.pk}/import/", data)
    page = client.get(response["Location"]).content.decode()
    assert "Nothing was imported: 2 problems." in page
    assert "3 of 3 records checked" in page  # the line that is not JSON was checked too
    assert '<li data-line="2">line 2:' in page and '<li data-line="3">line 3: width:' in page
    assert not Image.objects.exists()


def test_a_bad_coco_file_names_each_entry_by_its_place_not_a_line(
    client, users, collection, django_capture_on_commit_callbacks
):
    client = as_user(client, users, Role.REVIEWER)
    document = {
        "images": [{"id": i, "file_name": f"{i}.jpg", "width": 64, "height": 64} for i in range(4)],
        "annotations": [{"id": 1, "image_id": 3, "category_id": 5, "bbox": [1, 1, 5, 5]}],
        "categories": [{"id": 1, "name": "person"}],
    }
    document["images"][2]["width"] = 0
    data = {
        "file": SimpleUploadedFile("coco.json", json.dumps(document).encode()),
        "format": "coco",
        "split": "train",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/collections/{collection.pk}/import/", data)
    page = client.get(response["Location"]).content.decode()
    assert "4 of 4 records checked" in page and "Nothing was imported: 2 problems." in page
    assert '<li data-line="">images[2]: width: must be' in page
    assert '<li data-line="">annotations[0]: no usable category with id 5</li>' in page
    assert "line " not in page[page.index('data-role="errors"') :]


def test_import_form_errors_are_reported(client, users, collection):
    client = as_user(client, users, Role.REVIEWER)
    response = client.post(f"/collections/{collection.pk}/import/", {"format": "xml"}, follow=True)
    content = response.content.decode()
    assert "Import file: This field is required." in content and "Import format:" in content
    assert not ImportJob.objects.exists()


def test_an_import_past_the_users_limit_is_refused_on_the_collection_page(
    client, users, collection, settings
):
    """Issue 22: a user may have only JOBS_MAX_PER_USER imports waiting or running; the next is refused
    with the service's message on the page, and nothing is written."""
    settings.JOBS_MAX_PER_USER = 1
    reviewer = users[Role.REVIEWER]
    ImportJob.objects.create(collection=collection, created_by=reviewer, format="jsonl")  # still queued
    client = as_user(client, users, Role.REVIEWER)
    data = {
        "file": SimpleUploadedFile("s.jsonl", scene("a.jpg").encode()),
        "format": "jsonl",
        "split": "test",
    }
    response = client.post(f"/collections/{collection.pk}/import/", data, follow=True)
    assert response.status_code == 200
    assert "You already have 1 imports waiting or running" in response.content.decode()
    assert ImportJob.objects.count() == 1 and not Image.objects.exists()
