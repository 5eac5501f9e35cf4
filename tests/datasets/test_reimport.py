"""Re-imports never overwrite reviewed work silently (issue 37, decision 0071): an import plans what it
would change (images created, changed, unchanged; accepted images changed), stops to show it before it
replaces existing annotations, keeps accepted images as they are unless told to replace them, and counts
what it stored. The service, the API, the command; the pages are in tests/frontend/test_import_pages.py
and tests/e2e/test_collection_page.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.roles import Role
from annotations.models import Image, ObjectAnnotation, Stage
from annotations.selectors.annotation import image_annotation
from datasets.formats import jsonl_line
from datasets.models import ImportJob
from datasets.services import plan as planning
from datasets.services import run, writing
from datasets.services.creation import import_cancel, import_confirm, import_create
from datasets.services.run import import_run
from tests.annotations.images import image_bytes
from tests.datasets.formats import FIXTURES, MAPPING, zipped
from tests.datasets.formats import run_import as run_download
from tests.datasets.test_download_whole import images_zip, vg_with_a_zero_width_box
from tests.datasets.test_import_export import record
from tests.factories import CollectionFactory
from vtt_site import jobs
from vtt_site.errors import ApplicationError, ConflictError

pytestmark = pytest.mark.django_db

MOVED = {
    "id": "p",
    "type": "person",
    "bbox": [5, 6, 30, 40],
    "attributes": ["male"],
    "attributes_known": True,
}


def file_of(*records: dict) -> str:
    return "".join(jsonl_line(r) for r in records)


def start(collection, text: str, **options) -> ImportJob:
    job = import_create(
        collection=collection,
        format="jsonl",
        file=ContentFile(text.encode(), name="s.jsonl"),
        start=False,
        **options,
    )
    return import_run(job_id=job.pk)


def accepted_collection(collection, users, names=("a.jpg", "b.jpg", "c.jpg")) -> str:
    """Three images imported as reviewed, as the issue's user had them; the file they came from."""
    text = file_of(*(record(name) for name in names))
    job = start(collection, text, mark_reviewed=True, created_by=users[Role.REVIEWER])
    assert job.status == "done" and job.images_created == len(names)
    return text


def annotations_of(collection) -> dict[str, dict]:
    return {image.original_name: image_annotation(image=image) for image in collection.images.all()}


def stages(collection) -> dict[str, str]:
    return dict(collection.images.values_list("original_name", "stage"))


@pytest.fixture
def mixed(collection, users):
    """A collection with accepted a, b, c; d in review; e uploaded and never annotated; and a file that
    changes a and b, gives c the same annotation, changes d, annotates e and creates f."""
    accepted_collection(collection, users)
    start(collection, file_of(record("d.jpg")), created_by=users[Role.REVIEWER])
    Image.objects.create(collection=collection, original_name="e.jpg", width=640, height=480)
    moved = record(objects=[MOVED], relationships=[])
    text = file_of(
        moved | {"image": "a.jpg"},
        moved | {"image": "b.jpg"},
        record("c.jpg"),
        moved | {"image": "d.jpg"},
        record("e.jpg"),
        record("f.jpg"),
    )
    return text


def test_the_same_file_imported_again_changes_nothing_and_accepted_images_stay_accepted(collection, users):
    """The issue's case: without "mark as reviewed" the three accepted images went back to review."""
    text = accepted_collection(collection, users)
    before = annotations_of(collection)
    rows = sorted(ObjectAnnotation.objects.values_list("pk", flat=True))
    job = start(collection, text)  # no mark_reviewed, no choice: nothing to choose, nothing to stop for
    assert job.status == "done", job.message
    assert (job.images_created, job.images_updated, job.images_unchanged, job.images_kept) == (0, 0, 3, 0)
    assert stages(collection) == {"a.jpg": "accepted", "b.jpg": "accepted", "c.jpg": "accepted"}
    assert set(collection.images.values_list("reviewed_by", flat=True)) == {users[Role.REVIEWER].pk}
    assert annotations_of(collection) == before
    assert sorted(ObjectAnnotation.objects.values_list("pk", flat=True)) == rows  # not even rewritten


def test_unchanged_is_judged_on_the_record_read_back_every_field_compared(collection, users):
    """Object ids differ between the file and the store (p, v against o1, o2): still unchanged. A box
    half a pixel off, an "attributes unknown", an order of objects, a relationship: changed."""
    accepted_collection(collection, users, names=("a.jpg",))
    same = record()
    same["objects"] = [dict(o, id=f"x{i}") for i, o in enumerate(same["objects"])]
    same["relationships"] = [{"subject": "x0", "predicate": "entering or exiting", "object": "x1"}]
    assert start(collection, file_of(same)).images_unchanged == 1
    base = record()
    variants = [
        record(objects=[dict(base["objects"][0], bbox=[1.5, 2, 30, 40]), base["objects"][1]]),
        record(objects=[dict(base["objects"][0], attributes=[], attributes_known=False), base["objects"][1]]),
        record(objects=base["objects"][::-1]),
        record(relationships=[]),
    ]
    for variant in variants:
        job = start(collection, file_of(variant))
        assert (job.status, job.plan["changed"], job.plan["accepted"]) == ("previewed", 1, 1), variant
        import_cancel(job=job)


def test_a_reimport_that_would_replace_annotations_stops_with_its_plan_and_writes_nothing(
    collection, users, mixed
):
    before, stages_before = annotations_of(collection), stages(collection)
    job = start(collection, mixed)
    assert job.status == "previewed"
    assert job.plan | {"digest": ""} == {
        "created": 1,
        "changed": 4,
        "unannotated": 1,
        "accepted": 2,
        "unchanged": 1,
        "accepted_names": ["a.jpg", "b.jpg"],
        "digest": "",
    }
    assert "would replace the annotations of 3 existing images, 2 of them accepted" in job.message
    assert "Nothing has been imported yet" in job.message
    assert (job.claim, job.finished_at, job.accepted) == (None, None, "")
    assert annotations_of(collection) == before and stages(collection) == stages_before
    assert not Image.objects.filter(original_name="f.jpg").exists()


def test_going_on_without_replacing_keeps_accepted_images_as_they_are_and_counts_them(
    collection, users, mixed
):
    job = start(collection, mixed)
    before = annotations_of(collection)
    import_confirm(job=job, accepted="keep")
    job = import_run(job_id=job.pk)
    assert job.status == "done", job.message
    assert (job.images_created, job.images_updated, job.images_unchanged, job.images_kept) == (1, 2, 1, 2)
    after = annotations_of(collection)
    assert {name: after[name] == before.get(name) for name in sorted(after)} == {
        "a.jpg": True,
        "b.jpg": True,
        "c.jpg": True,
        "d.jpg": False,
        "e.jpg": False,
        "f.jpg": False,
    }
    assert stages(collection) == {
        "a.jpg": "accepted",
        "b.jpg": "accepted",
        "c.jpg": "accepted",
        "d.jpg": "review",
        "e.jpg": "review",
        "f.jpg": "review",
    }
    assert after["d.jpg"]["objects"][0]["bbox"] == [5, 6, 30, 40]


def test_going_on_and_replacing_sends_the_changed_accepted_images_where_the_import_sends_images(
    collection, users, mixed
):
    job = import_confirm(job=start(collection, mixed), accepted="replace")
    assert (job.status, job.accepted) == ("queued", "replace")
    job = import_run(job_id=job.pk)
    assert (job.images_created, job.images_updated, job.images_unchanged, job.images_kept) == (1, 4, 1, 0)
    assert stages(collection) == {
        "a.jpg": "review",
        "b.jpg": "review",
        "c.jpg": "accepted",  # unchanged: not rewritten, keeps its stage
        "d.jpg": "review",
        "e.jpg": "review",
        "f.jpg": "review",
    }
    assert image_annotation(image=Image.objects.get(original_name="a.jpg"))["objects"][0]["bbox"] == [
        5,
        6,
        30,
        40,
    ]
    assert Image.objects.get(original_name="a.jpg").reviewed_by is None


def test_a_choice_given_when_the_import_is_created_needs_no_stop(collection, users, mixed):
    job = start(collection, mixed, accepted="keep")
    assert (job.status, job.images_kept, job.images_updated) == ("done", 2, 2)


def test_a_first_import_needs_no_stop_and_a_preview_can_be_asked_for(collection):
    job = start(collection, file_of(record("a.jpg"), record("b.jpg")))
    assert (job.status, job.images_created, job.plan["created"]) == ("done", 2, 2)
    fresh = CollectionFactory(vocabulary=collection.vocabulary)
    job = start(fresh, file_of(record("a.jpg")), preview=True)
    assert (job.status, job.plan["created"], fresh.images.count()) == ("previewed", 1, 0)
    assert job.message.startswith("Preview: this is what the import would do.")
    assert import_run(job_id=import_confirm(job=job, accepted="keep").pk).status == "done"
    assert fresh.images.count() == 1


def test_when_the_collection_changed_since_the_preview_the_import_stops_again(collection, users, mixed):
    job = start(collection, mixed)
    # Meanwhile a reviewer accepts d: going on "keeping accepted images" would now keep d too.
    Image.objects.filter(original_name="d.jpg").update(stage=Stage.ACCEPTED)
    job = import_run(job_id=import_confirm(job=job, accepted="replace").pk)
    assert (job.status, job.accepted, job.plan["accepted"]) == ("previewed", "", 3)
    assert "The collection changed since the preview" in job.message
    assert not Image.objects.filter(original_name="f.jpg").exists()
    job = import_run(job_id=import_confirm(job=job, accepted="keep").pk)
    assert (job.status, job.images_kept) == ("done", 3)


def test_a_change_between_the_plan_and_the_write_rolls_the_write_back_and_stops(collection, monkeypatch):
    """The plan is made again under the write's locks: an image annotated meanwhile is not overwritten."""
    Image.objects.create(collection=collection, original_name="e.jpg", width=640, height=480)
    planned = run.stopped

    def then_someone_annotates(job, plan, **values):
        stopped = planned(job, plan, **values)
        Image.objects.filter(original_name="e.jpg").update(annotated_at=timezone.now(), stage=Stage.ACCEPTED)
        return stopped

    monkeypatch.setattr(run, "stopped", then_someone_annotates)
    job = start(collection, file_of(record("e.jpg"), record("f.jpg")))
    assert (job.status, job.plan["accepted"], job.plan["created"]) == ("previewed", 1, 1)
    assert not Image.objects.filter(original_name="f.jpg").exists()  # all or nothing
    assert not ObjectAnnotation.objects.exists()


def test_a_confirmed_import_whose_worker_died_is_taken_over_with_the_choice(
    collection, users, mixed, settings
):
    job = import_confirm(job=start(collection, mixed), accepted="keep")
    assert job.attempts == 0  # the run that previewed does not count against it
    held = jobs.job_claim(ImportJob, job.pk, reset={})  # a worker takes it, then dies
    ImportJob.objects.filter(pk=held.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS + 5)
    )
    job = import_run(job_id=job.pk)
    assert (job.status, job.attempts, job.images_kept, job.images_updated) == ("done", 2, 2, 2)


def test_only_a_previewed_import_goes_on_or_is_cancelled_and_the_choice_is_one_of_two(collection, mixed):
    job = start(collection, mixed)
    for bad in ("", "overwrite", None):
        with pytest.raises(ApplicationError, match="keep' or 'replace"):
            import_confirm(job=job, accepted=bad)  # type: ignore[arg-type]
    assert import_cancel(job=job).status == "cancelled"
    for act in (lambda: import_cancel(job=job), lambda: import_confirm(job=job, accepted="keep")):
        with pytest.raises(ConflictError, match="This import is cancelled, not waiting for a choice"):
            act()
    assert import_run(job_id=job.pk).status == "cancelled"  # a late delivery of its task does nothing
    with pytest.raises(ApplicationError, match="keep' or 'replace"):
        start(collection, mixed, accepted="always")


# --- Downloads: flags, source ids, refused entries, pixels -------------------------------------------------


DOWNLOADS = {
    "vg": (lambda: zipped(FIXTURES / "vg" / "scene_graphs"), MAPPING),
    "gqa": (lambda: (FIXTURES / "gqa" / "sceneGraphs.json").read_bytes(), MAPPING),
    "openimages": (lambda: zipped(FIXTURES / "openimages"), FIXTURES / "openimages-mapping.yaml"),
}


@pytest.mark.parametrize("fmt", sorted(DOWNLOADS))
def test_a_download_imported_again_is_unchanged_its_flags_and_source_ids_compared_too(collection, fmt):
    data, mapping = DOWNLOADS[fmt]
    first = run_download(collection, fmt, data(), mapping, complete=True)
    assert first.status == "done" and first.images_created > 0, first.errors
    before = annotations_of(collection)
    again = run_download(collection, fmt, data(), mapping, complete=True)
    assert (again.status, again.images_updated, again.images_unchanged) == ("done", 0, first.images_created)
    assert annotations_of(collection) == before
    # The same download with its source ids changed only: changed, and the import stops to say so.
    flags = ObjectAnnotation.objects.exclude(flags=[]).values_list("pk", flat=True)
    if fmt == "openimages":
        assert flags  # the fixture's depictions and occluded boxes are compared as stored
    Image.objects.filter(collection=collection).update(source_id="elsewhere")
    third = run_download(collection, fmt, data(), mapping, complete=True)
    assert (third.status, third.plan["changed"]) == ("previewed", first.images_created)


def test_a_previewed_download_keeps_its_refused_entries_and_report_and_attaches_pixels_once_it_goes_on(
    collection, users, tmp_path, settings
):
    settings.IMPORT_MAX_REFUSED_SHARE = 0.5  # the fixture is small: 1 entry in 4
    data = zipped(FIXTURES / "vg" / "scene_graphs")
    assert run_download(collection, "vg", data, MAPPING, mark_reviewed=True, complete=True).status == "done"
    pictures = images_zip({"101.jpg": image_bytes("JPEG", size=(800, 600))})
    job = run_download(
        collection,
        "vg",
        vg_with_a_zero_width_box(tmp_path),
        MAPPING,
        complete=True,
        images=ContentFile(pictures, name="images.zip"),
    )
    assert (job.status, job.entries_refused, job.plan["accepted"]) == ("previewed", 1, 1)
    assert "a box has a positive width and height" in job.errors[0]["message"] and job.report
    assert not Image.objects.exclude(file="").exists()  # nothing attached before the choice
    job = import_run(job_id=import_confirm(job=job, accepted="keep").pk)
    assert (job.status, job.images_kept, job.images_unchanged, job.pixels_attached) == ("done", 1, 2, 1)
    assert job.entries_refused == 1 and Image.objects.get(original_name="101.jpg").stage == Stage.ACCEPTED


# --- API -----------------------------------------------------------------------------------------------------


def previewed(collection, users, text) -> ImportJob:
    return start(collection, text, created_by=users[Role.REVIEWER])


def test_api_shows_the_plan_and_goes_on_with_the_choice(
    api, users, collection, mixed, django_capture_on_commit_callbacks
):
    job = previewed(collection, users, mixed)
    client = api.as_user(users[Role.REVIEWER])
    shown = client.get(f"/api/v1/imports/{job.pk}/").json()
    assert shown["status"] == "previewed" and shown["accepted"] == ""
    assert shown["plan"] == {
        "created": 1,
        "changed": 4,
        "unannotated": 1,
        "accepted": 2,
        "unchanged": 1,
        "accepted_names": ["a.jpg", "b.jpg"],
    }
    with django_capture_on_commit_callbacks(execute=True):  # the task runs when the request commits
        response = client.post(f"/api/v1/imports/{job.pk}/confirm/", {"accepted": "keep"}, format="json")
    assert response.status_code == 202 and response.json()["status"] == "queued"
    done = client.get(f"/api/v1/imports/{job.pk}/").json()
    assert (done["status"], done["images_updated"], done["images_unchanged"], done["images_kept"]) == (
        "done",
        2,
        1,
        2,
    )


@pytest.mark.parametrize("body", [{}, {"accepted": ""}, {"accepted": "overwrite"}, {"accepted": ["keep"]}])
def test_api_refuses_a_missing_or_unknown_choice_and_changes_nothing(api, users, collection, mixed, body):
    job = previewed(collection, users, mixed)
    response = api.as_user(users[Role.REVIEWER]).post(
        f"/api/v1/imports/{job.pk}/confirm/", body, format="json"
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid"
    assert "accepted" in response.json()["fields"]
    assert ImportJob.objects.get(pk=job.pk).status == "previewed"


def test_api_confirming_or_cancelling_an_import_that_does_not_wait_is_a_conflict(
    api, users, collection, mixed
):
    client = api.as_user(users[Role.REVIEWER])
    done = start(collection, file_of(record("z.jpg")))
    queued = import_create(
        collection=collection, format="jsonl", file=ContentFile(mixed.encode(), name="s.jsonl"), start=False
    )
    for job, status in ((done, "done"), (queued, "queued")):
        for action, body in (("confirm", {"accepted": "keep"}), ("cancel", None)):
            response = client.post(f"/api/v1/imports/{job.pk}/{action}/", body, format="json")
            assert response.status_code == 409, (status, action)
            assert response.json()["code"] == "import_not_waiting"
            assert f"This import is {status}, not waiting for a choice" in response.json()["message"]
    job = previewed(collection, users, mixed)
    assert (
        client.post(f"/api/v1/imports/{job.pk}/confirm/", {"accepted": "keep"}, format="json").status_code
        == 202
    )
    second = client.post(f"/api/v1/imports/{job.pk}/confirm/", {"accepted": "replace"}, format="json")
    assert second.status_code == 409  # two choices at once: the first one is taken
    assert ImportJob.objects.get(pk=job.pk).accepted == "keep"


def test_api_cancel_ends_a_previewed_import_and_writes_nothing(api, users, collection, mixed):
    job = previewed(collection, users, mixed)
    response = api.as_user(users[Role.REVIEWER]).post(f"/api/v1/imports/{job.pk}/cancel/")
    assert response.status_code == 200
    assert (response.json()["status"], response.json()["message"]) == (
        "cancelled",
        "Cancelled after the preview: nothing was imported.",
    )
    assert not Image.objects.filter(original_name="f.jpg").exists()


def test_api_only_reviewers_of_the_collection_may_go_on_or_cancel(api, users, collection, mixed):
    job = previewed(collection, users, mixed)
    for action, body in (("confirm", {"accepted": "replace"}), ("cancel", None)):
        annotator = api.as_user(users[Role.ANNOTATOR]).post(
            f"/api/v1/imports/{job.pk}/{action}/", body, format="json"
        )
        assert annotator.status_code == 403, action
        stranger = CollectionFactory(vocabulary=collection.vocabulary)
        outsider = start(stranger, file_of(record("q.jpg")), preview=True)
        other = api.as_user(users[Role.REVIEWER]).post(
            f"/api/v1/imports/{outsider.pk}/{action}/", body, format="json"
        )
        assert other.status_code == 404 and other.json()["code"] == "import_not_found", action
        anonymous = type(api)().post(f"/api/v1/imports/{job.pk}/{action}/", body, format="json")
        assert anonymous.status_code == 401
    assert ImportJob.objects.get(pk=job.pk).status == "previewed"


def test_api_create_takes_the_choice_and_a_preview_and_refuses_an_unknown_choice(
    api, users, collection, mixed
):
    client = api.as_user(users[Role.REVIEWER])

    def create(**fields):
        data = {"file": ContentFile(mixed.encode(), name="s.jsonl"), "format": "jsonl", **fields}
        return client.post(f"/api/v1/collections/{collection.pk}/imports/", data, format="multipart")

    refused = create(accepted="always")
    assert refused.status_code == 400 and "accepted" in refused.json()["fields"]
    made = create(accepted="replace", preview="true")
    assert made.status_code == 202 and (made.json()["accepted"], made.json()["preview"]) == ("replace", True)


# --- The command ---------------------------------------------------------------------------------------------


def test_command_preview_prints_the_plan_and_writes_nothing(collection, users, mixed, tmp_path, capsys):
    source = tmp_path / "again.jsonl"
    source.write_text(mixed)
    before = annotations_of(collection)
    call_command("import_scenes", str(source), collection=collection.name, format="jsonl", preview=True)
    out = capsys.readouterr().out
    assert (
        "Would create 1 image(s) and change the annotation of 4 existing image(s) (1 not annotated yet); "
        "1 unchanged." in out
    )
    assert "2 accepted image(s) would change: a.jpg, b.jpg. Without --replace-accepted" in out
    assert f"Preview of {source}: nothing was imported." in out
    assert annotations_of(collection) == before and ImportJob.objects.latest("pk").status == "cancelled"


def test_command_keeps_accepted_images_unless_told_to_replace_them(
    collection, users, mixed, tmp_path, capsys
):
    source = tmp_path / "again.jsonl"
    source.write_text(mixed)
    call_command("import_scenes", str(source), collection=collection.name, format="jsonl")
    out = capsys.readouterr().out
    assert "1 new image(s), 2 existing image(s) annotated, 1 unchanged" in out
    assert "Kept 2 accepted image(s) as they were" in out and "--replace-accepted replaces them" in out
    assert stages(collection)["a.jpg"] == "accepted"
    call_command(
        "import_scenes", str(source), collection=collection.name, format="jsonl", replace_accepted=True
    )
    out = capsys.readouterr().out
    assert "0 new image(s), 2 existing image(s) annotated, 4 unchanged" in out and "Kept" not in out
    assert stages(collection)["a.jpg"] == "review"


def test_command_says_so_when_the_collection_changed_under_it(collection, tmp_path, monkeypatch):
    """A command cannot be asked: a plan that changed between planning and writing ends it with a message."""
    source = tmp_path / "again.jsonl"
    source.write_text(file_of(record("e.jpg")))
    Image.objects.create(collection=collection, original_name="e.jpg", width=640, height=480)
    changed = lambda job, plan: None if job.status != "writing" else "Changed."  # noqa: E731
    monkeypatch.setattr(writing, "why_stop", changed)  # the write's check under its locks
    monkeypatch.setattr(planning, "why_stop", changed)  # the stop's message
    with pytest.raises(CommandError, match=r"Changed\. Run the command again\."):
        call_command("import_scenes", str(source), collection=collection.name, format="jsonl")
    assert not ObjectAnnotation.objects.filter(image__original_name="e.jpg").exists()
