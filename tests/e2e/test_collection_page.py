"""The collection page in the browser: an upload of several files says per file what went in and what
was refused; an import's page follows the job until it fails and lists every bad line."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from playwright.sync_api import expect

from annotations.models import Image
from datasets.services.creation import import_create
from datasets.services.run import import_run
from tests.annotations.images import image_bytes, zip_bytes
from tests.e2e.conftest import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_upload_of_files_and_a_zip_reports_each_file(team, page, tmp_path):
    collection, members = team
    files = {
        "red.png": image_bytes("PNG", color=(200, 0, 0)),
        "notes.txt": b"not an image",
        "batch.zip": zip_bytes({"green.jpg": image_bytes("JPEG", color=(0, 200, 0)), "empty.png": b""}),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    login(page, members["rita"])
    page.goto(f"/collections/{collection.pk}/")
    page.set_input_files("#upload input[type=file]", [str(tmp_path / name) for name in files])
    page.select_option("#upload select[name=split]", "test")
    page.locator("#upload button[type=submit]").click()

    result = page.get_by_test_id("upload-result")
    result.wait_for()
    assert "2 images went in, 2 files refused." in result.inner_text()
    assert "went in" in result.locator('tr[data-file="red.png"]').inner_text()
    assert "went in" in result.locator('tr[data-file="green.jpg"]').inner_text()
    assert (
        "refused: notes.txt: This is not an image file"
        in result.locator('tr[data-file="notes.txt"]').inner_text()
    )
    assert (
        "refused: empty.png: The file is empty." in result.locator('tr[data-file="empty.png"]').inner_text()
    )
    assert sorted(
        Image.objects.filter(collection=collection, split="test").values_list("original_name", flat=True)
    ) == [
        "green.jpg",
        "red.png",
    ]
    assert page.locator(".thumbs li").count() == 2


def test_import_page_polls_the_job_until_it_fails_and_lists_every_bad_line(team, page):
    collection, members = team
    good = {"image": "a.jpg", "width": 640, "height": 480, "objects": [], "relationships": []}
    lines = [
        json.dumps(good),
        "{not json",
        json.dumps(
            good | {"image": "b.jpg", "objects": [{"id": "o1", "type": "dragon", "bbox": [1, 1, 5, 5]}]}
        ),
    ]
    job = import_create(
        collection=collection,
        format="jsonl",
        file=SimpleUploadedFile("scenes.jsonl", "\n".join(lines).encode()),
        created_by=members["rita"],
        start=False,  # the test runs it, while the page watches
    )
    login(page, members["rita"])
    page.goto(f"/imports/{job.pk}/")
    assert page.inner_text("[data-role=status]") == "queued"

    import_run(job_id=job.pk)
    page.wait_for_selector("#import-job[data-finished=true]")
    assert page.inner_text("[data-role=status]") == "failed"
    assert "Nothing was imported: 2 problems." in page.inner_text("[data-role=result]")
    errors = page.locator("[data-role=errors] li")
    assert errors.evaluate_all("items => items.map(i => i.dataset.line)") == ["2", "3"]
    assert "dragon" in errors.nth(1).inner_text()


def test_choosing_more_files_than_one_request_may_carry_is_stopped_before_sending(
    team, page, tmp_path, settings
):
    collection, members = team
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 2  # Django would answer a bare 400 to the third
    paths = []
    for i in range(3):
        paths.append(tmp_path / f"{i}.png")
        paths[-1].write_bytes(image_bytes("PNG", color=(i, 0, 0)))
    login(page, members["alice"])
    page.goto(f"/collections/{collection.pk}/")
    page.set_input_files("#upload input[type=file]", [str(path) for path in paths])
    assert "3 files chosen; at most 2 per upload. Put them in a zip archive." in page.inner_text(
        "[data-role=upload-error]"
    )
    sent = []
    page.on("request", lambda request: sent.append(request.url) if "/upload/" in request.url else None)
    page.locator("#upload button[type=submit]").click()
    page.wait_for_timeout(500)
    assert sent == [] and not Image.objects.exists()


def test_a_reimport_shows_what_it_would_change_and_goes_on_keeping_the_accepted_images(team, page):
    """Issue 37: the page follows the job to its plan, shows it, and the reviewer's choice goes on."""
    collection, members = team
    scene = {"width": 640, "height": 480, "relationships": []}
    person = {
        "id": "p",
        "type": "person",
        "bbox": [10, 10, 40, 80],
        "attributes": [],
        "attributes_known": False,
    }
    first = "".join(json.dumps(scene | {"image": n, "objects": [person]}) + "\n" for n in ("a.jpg", "b.jpg"))
    done = import_run(
        job_id=import_create(
            collection=collection,
            format="jsonl",
            file=SimpleUploadedFile("first.jsonl", first.encode()),
            mark_reviewed=True,
            created_by=members["rita"],
            start=False,
        ).pk
    )
    assert done.status == "done"
    moved = person | {"bbox": [20, 10, 40, 80]}
    again = "".join(
        json.dumps(scene | {"image": n, "objects": [moved if n == "a.jpg" else person]}) + "\n"
        for n in ("a.jpg", "b.jpg", "c.jpg")
    )
    job = import_create(
        collection=collection,
        format="jsonl",
        file=SimpleUploadedFile("again.jsonl", again.encode()),
        created_by=members["rita"],
        start=False,  # the test runs it, while the page watches
    )
    login(page, members["rita"])
    page.goto(f"/imports/{job.pk}/")
    plan = page.get_by_test_id("import-plan")
    assert plan.is_hidden()

    import_run(job_id=job.pk)
    page.wait_for_selector("#import-job[data-finished=true]")
    assert page.inner_text("[data-role=status]") == "previewed"
    assert plan.is_visible()
    assert "would replace the annotations of 1 existing image, 1 of them accepted" in plan.inner_text()
    cells = {
        key: page.inner_text(f"[data-role=plan-{key}]")
        for key in ("created", "changed", "accepted", "unchanged")
    }
    assert cells == {"created": "1", "changed": "1", "accepted": "1", "unchanged": "1"}
    assert page.inner_text("[data-role=plan-accepted-names]") == "Accepted images it would change: a.jpg."
    assert page.locator("[data-role=replace]").is_visible()
    assert Image.objects.get(original_name="a.jpg").stage == "accepted"

    page.get_by_role("button", name="Go on, keep the accepted images as they are").click()
    # Eager tasks here: the import ran in the request, so the page it opens says it is done.
    expect(page.locator("[data-role=result]")).to_contain_text(
        "Imported: 1 image created, 0 changed, 1 unchanged; 1 accepted image kept as it was."
    )
    assert plan.is_hidden()
    assert dict(Image.objects.values_list("original_name", "stage")) == {
        "a.jpg": "accepted",
        "b.jpg": "accepted",
        "c.jpg": "review",
    }
