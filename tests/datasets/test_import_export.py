"""Import and export of scene graphs: every bad line reported, all or nothing, round trips that give back
the same scene graphs, the Celery task, the API and the management commands."""

from __future__ import annotations

import json

import pytest
from django.core.files.base import ContentFile
from django.core.management import CommandError, call_command

from accounts.roles import Role
from annotations.models import Image, ObjectAnnotation, RelationshipAnnotation, Stage
from annotations.selectors.vocabularies import core_vocabulary
from datasets.formats import jsonl_line, scene_format
from datasets.models import ImportJob
from datasets.selectors.exports import scene_export
from datasets.services.creation import import_confirm, import_create
from datasets.services.run import import_run
from demo.synthetic import generate_scenes
from kernel.scene import parse_scene
from tests.annotations.images import image_bytes, upload
from tests.factories import CollectionFactory

pytestmark = pytest.mark.django_db


def jsonl_export(*, collection, stage=None) -> str:
    return b"".join(
        scene_export(collection=collection, scene_format=scene_format("jsonl"), stage=stage)
    ).decode()


def coco_export(*, collection, stage=None) -> dict:
    return json.loads(
        b"".join(scene_export(collection=collection, scene_format=scene_format("coco"), stage=stage))
    )


def run_import(collection, text: str, fmt="jsonl", **options) -> ImportJob:
    job = import_create(
        collection=collection,
        format=fmt,
        file=ContentFile(text.encode(), name=f"scenes.{fmt}"),
        start=False,
        **options,
    )
    return import_run(job_id=job.pk)


def scenes_text(count: int, seed: int = 7) -> str:
    return "".join(jsonl_line(scene) for scene in generate_scenes(count, seed, prefix="t"))


def record(name="a.jpg", width=640, height=480, **changes) -> dict:
    base = {
        "image": name,
        "width": width,
        "height": height,
        "objects": [
            {
                "id": "p",
                "type": "person",
                "bbox": [1, 2, 30, 40],
                "attributes": ["male"],
                "attributes_known": True,
            },
            {
                "id": "v",
                "type": "vehicle",
                "bbox": [100, 100, 200, 90],
                "attributes": [],
                "attributes_known": False,
            },
        ],
        "relationships": [{"subject": "p", "predicate": "entering or exiting", "object": "v"}],
    }
    return base | changes


def test_jsonl_import_creates_images_without_pixels_in_review(collection):
    job = run_import(collection, jsonl_line(record()) + "\n" + jsonl_line(record("b.jpg")), split="test")
    assert job.status == "done", job.errors
    assert (job.lines_total, job.lines_done, job.images_created, job.images_updated) == (2, 2, 2, 0)
    image = Image.objects.get(original_name="a.jpg")
    assert (image.stage, image.split, image.file.name, image.width) == (Stage.REVIEW, "test", "", 640)
    assert ObjectAnnotation.objects.count() == 4
    assert RelationshipAnnotation.objects.count() == 2


def test_mark_reviewed_accepts_the_images_at_once(collection, users):
    job = run_import(collection, jsonl_line(record()), mark_reviewed=True, created_by=users[Role.REVIEWER])
    image = Image.objects.get()
    assert job.status == "done"
    assert (image.stage, image.reviewed_by) == (Stage.ACCEPTED, users[Role.REVIEWER])


def test_a_record_named_like_an_uploaded_image_becomes_its_annotation(api, annotator, collection):
    response = api.as_user(annotator).post(
        f"/api/v1/collections/{collection.pk}/images/",
        {"files": [upload("photo.png", image_bytes(size=(320, 200)))]},
        format="multipart",
    )
    image_id = response.json()["created"][0]["id"]
    job = run_import(collection, jsonl_line(record("photo.png", 320, 200)))
    assert (job.status, job.images_created, job.images_updated) == ("done", 0, 1)
    image = Image.objects.get(pk=image_id)
    assert image.stage == Stage.REVIEW and image.file
    assert ObjectAnnotation.objects.filter(image=image).count() == 2
    # Importing a different annotation again waits for a choice (decision 0071), then replaces it; a
    # size that does not match the image is an error.
    again = run_import(collection, jsonl_line(record("photo.png", 320, 200, relationships=[])))
    assert again.status == "previewed" and RelationshipAnnotation.objects.exists()
    import_confirm(job=again, accepted="keep")
    assert import_run(job_id=again.pk).status == "done"
    assert not RelationshipAnnotation.objects.exists()
    wrong = run_import(collection, jsonl_line(record("photo.png", 640, 480)))
    assert wrong.errors == [
        {
            "line": 1,
            "message": "image: image 'photo.png' is 320x200 in the collection, but this record says 640x480",
        }
    ]


def test_every_bad_line_is_reported_and_nothing_is_written(collection):
    lines = [
        jsonl_line(record("good-1.jpg")),
        "{not json\n",
        jsonl_line(record("bad-box.jpg", objects=[{"id": "x", "type": "person", "bbox": [900, 900, 5, 5]}])),
        "\n",  # blank lines are skipped but counted
        jsonl_line(record("good-2.jpg")),
        jsonl_line(record("bad-type.jpg", objects=[{"id": "x", "type": "dog", "bbox": [1, 1, 5, 5]}])),
        jsonl_line(record("good-1.jpg")),
        jsonl_line(
            record("bad-self.jpg", relationships=[{"subject": "p", "predicate": "talking", "object": "p"}])
        ),
    ]
    job = run_import(collection, "".join(lines))
    assert job.status == "failed"
    assert [(e["line"], e["message"].split(":")[0]) for e in job.errors] == [
        (2, "not valid JSON (Expecting property name enclosed in double quotes at column 2)"),
        (3, "objects[0].bbox"),
        (6, "objects[0].type"),
        (7, "image"),
        (8, "relationships[0]"),
    ]
    assert "already at line 1" in job.errors[3]["message"]
    # Every record was checked, the one that is not even JSON included.
    assert (job.lines_done, job.lines_total) == (7, 7)
    assert not Image.objects.exists()
    assert not ObjectAnnotation.objects.exists()


def test_running_an_import_again_changes_nothing(collection):
    job = run_import(collection, jsonl_line(record()))
    finished_at = job.finished_at
    again = import_run(job_id=job.pk)
    assert (again.status, again.finished_at) == ("done", finished_at)
    assert Image.objects.count() == 1
    assert ObjectAnnotation.objects.count() == 2


def test_jsonl_export_then_import_gives_back_the_same_scene_graphs(collection):
    assert run_import(collection, scenes_text(25), mark_reviewed=True).status == "done"
    exported = "".join(jsonl_export(collection=collection))
    fresh = CollectionFactory(vocabulary=collection.vocabulary)
    assert run_import(fresh, exported).status == "done"
    assert "".join(jsonl_export(collection=fresh)) == exported
    # And the export says what was imported: the synthetic records as the engine core reads them (boxes
    # clipped, attributes in the vocabulary's order, symmetric relationships once, ids o1..oN in order).
    vocabulary = core_vocabulary(collection.vocabulary)
    original = [
        parse_scene(json.loads(line), vocabulary).to_document(vocabulary)
        for line in scenes_text(25).splitlines()
    ]
    assert [json.loads(line) for line in exported.splitlines()] == original


def test_coco_export_then_import_gives_back_the_boxes_and_categories(collection):
    run_import(collection, scenes_text(10), mark_reviewed=True)
    document = coco_export(collection=collection)
    assert [c["name"] for c in document["categories"]] == ["person", "vehicle"]
    fresh = CollectionFactory(vocabulary=collection.vocabulary)
    job = run_import(fresh, json.dumps(document), fmt="coco")
    assert job.status == "done", job.errors
    again = coco_export(collection=fresh)

    def boxes(doc):
        category = {c["id"]: c["name"] for c in doc["categories"]}
        name = {i["id"]: (i["file_name"], i["width"], i["height"]) for i in doc["images"]}
        return sorted(
            (name[a["image_id"]], category[a["category_id"]], a["bbox"]) for a in doc["annotations"]
        )

    assert boxes(again) == boxes(document)
    assert again["categories"] == document["categories"]
    assert not ObjectAnnotation.objects.filter(image__collection=fresh, attributes_known=True).exists()


def test_coco_problems_are_reported_by_their_place_in_the_document_never_a_line(collection):
    document = {
        "images": [
            {"id": 1, "file_name": "a.jpg", "width": 100, "height": 100},
            {"id": 2, "file_name": "b.jpg"},
        ],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 20, 20]},
            {"id": 2, "image_id": 1, "category_id": 7, "bbox": [10, 10, 20, 20]},
            {"id": 3, "image_id": 9, "category_id": 1, "bbox": [10, 10, 20, 20]},
        ],
        "categories": [{"id": 1, "name": "person"}, {"id": 2, "name": "dog"}],
    }
    job = run_import(collection, json.dumps(document), fmt="coco")
    assert job.status == "failed"
    assert all(e["line"] is None for e in job.errors)  # a COCO file has no meaningful line numbers
    messages = [e["message"] for e in job.errors]
    assert "annotations[2]: no image with id 9" in messages
    assert any(message.startswith("categories[1]: 'dog'") for message in messages)
    assert "annotations[1]: no usable category with id 7" in messages
    assert any(message.startswith("images[1]: width: must be") for message in messages)
    assert (job.lines_done, job.lines_total) == (2, 2)
    assert not Image.objects.exists()


def test_coco_entries_that_are_not_images_and_duplicates_are_named_and_counted(collection):
    image = {"id": 1, "file_name": "a.jpg", "width": 100, "height": 100}
    document = {
        "images": [image, "not an image", image | {"id": 2}, image],
        "annotations": [],
        "categories": [{"id": 1, "name": "person"}],
    }
    job = run_import(collection, json.dumps(document), fmt="coco")
    assert sorted(e["message"] for e in job.errors) == [
        'images[1]: an image is {"id", "file_name", "width", "height"}',
        "images[2]: image: image 'a.jpg' is already at images[0]",
        "images[3]: duplicate image id 1",
    ]
    assert (job.lines_done, job.lines_total) == (4, 4)


def test_a_file_that_is_not_coco_fails_as_a_whole(collection):
    job = run_import(collection, "[1, 2", fmt="coco")
    assert job.status == "failed"
    assert job.errors[0]["line"] is None
    assert "not valid JSON" in job.errors[0]["message"]


# --- API ------------------------------------------------------------------------------------------------


def test_api_import_runs_as_a_task_and_reports_progress(
    api, reviewer, collection, django_capture_on_commit_callbacks
):
    client = api.as_user(reviewer)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/api/v1/collections/{collection.pk}/imports/",
            {
                "file": upload("scenes.jsonl", scenes_text(3).encode()),
                "format": "jsonl",
                "mark_reviewed": "true",
            },
            format="multipart",
        )
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "queued"
    job = client.get(f"/api/v1/imports/{response.json()['id']}/").json()
    assert (job["status"], job["lines_total"], job["lines_done"], job["images_created"]) == ("done", 3, 3, 3)
    assert collection.images.filter(stage=Stage.ACCEPTED).count() == 3


def test_api_import_reports_bad_lines(api, reviewer, collection, django_capture_on_commit_callbacks):
    client = api.as_user(reviewer)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/api/v1/collections/{collection.pk}/imports/",
            {"file": upload("scenes.jsonl", b"{}\n"), "format": "jsonl"},
            format="multipart",
        )
    job = client.get(f"/api/v1/imports/{response.json()['id']}/").json()
    assert job["status"] == "failed"
    assert job["errors"] == [{"line": 1, "message": "image: image must be a non-empty string"}]


def test_api_export_streams_a_file_filtered_by_stage(api, users, collection):
    run_import(collection, scenes_text(2), mark_reviewed=True)
    run_import(collection, jsonl_line(record("pending.jpg")))
    client = api.as_user(users[Role.OPERATOR])
    everything = client.get(f"/api/v1/collections/{collection.pk}/export/jsonl/")
    assert everything.status_code == 200
    assert everything["Content-Type"] == "application/x-ndjson"
    assert "attachment" in everything["Content-Disposition"]
    lines = b"".join(everything.streaming_content).decode().splitlines()
    assert len(lines) == 3
    accepted = client.get(f"/api/v1/collections/{collection.pk}/export/jsonl/?stage=accepted")
    assert len(b"".join(accepted.streaming_content).splitlines()) == 2
    coco = client.get(f"/api/v1/collections/{collection.pk}/export/coco/?stage=accepted")
    assert len(json.loads(b"".join(coco.streaming_content))["images"]) == 2
    assert client.get(f"/api/v1/collections/{collection.pk}/export/csv/").status_code == 404


# --- Management commands ---------------------------------------------------------------------------------


def test_import_command_prints_every_bad_line_and_exits_non_zero(collection, tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text(jsonl_line(record()) + "oops\n" + jsonl_line(record("b.jpg", width=0)))
    with pytest.raises(CommandError, match="Nothing was imported: 2 problem"):
        call_command("import_scenes", str(path), collection=collection.name, format="jsonl")
    err = capsys.readouterr().err
    assert f"{path}: line 2: not valid JSON" in err
    assert f"{path}: line 3: width: must be a whole number" in err
    assert not Image.objects.exists()


def test_import_and_export_commands_round_trip(collection, tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text(scenes_text(5))
    call_command(
        "import_scenes",
        str(source),
        collection=str(collection.pk),
        format="jsonl",
        split="test",
        mark_reviewed=True,
    )
    assert "5 new image(s)" in capsys.readouterr().out
    assert collection.images.filter(split="test", stage=Stage.ACCEPTED).count() == 5
    out = tmp_path / "out.jsonl"
    call_command("export_scenes", collection=collection.name, format="jsonl", stage="accepted", out=str(out))
    assert out.read_text() == "".join(jsonl_export(collection=collection))
    coco = tmp_path / "out.json"
    call_command("export_scenes", collection=collection.name, format="coco", out=str(coco))
    assert len(json.loads(coco.read_text())["annotations"]) == ObjectAnnotation.objects.count()
    with pytest.raises(CommandError, match="No collection"):
        call_command("export_scenes", collection="nope", format="jsonl", out=str(out))


def test_validation_progress_is_committed_as_it_goes(collection, monkeypatch):
    from datasets.services import validation

    seen: list[int] = []
    progress = validation.job_progress

    def spy(job, **values):
        if "lines_done" in values:
            seen.append(ImportJob.objects.get(pk=job.pk).lines_done)
        progress(job, **values)

    monkeypatch.setattr(validation, "PROGRESS_EVERY", 2)
    monkeypatch.setattr(validation, "job_progress", spy)
    job = run_import(collection, scenes_text(5))
    assert job.status == "done"
    # Before each update the previous one is visible in the database: 0, then 2, then 4 of 5.
    assert seen == [0, 2, 4]
    assert ImportJob.objects.get(pk=job.pk).lines_done == 5


def test_a_failure_while_writing_leaves_nothing_behind(collection, monkeypatch):
    from django.db import IntegrityError

    from datasets.services import writing

    def clash(**kwargs):
        raise IntegrityError("duplicate key value violates unique constraint")

    monkeypatch.setattr(writing, "annotation_insert", clash)
    job = run_import(collection, scenes_text(3))
    assert job.status == "failed"
    assert "nothing was imported" in job.errors[0]["message"]
    assert not Image.objects.exists()
    monkeypatch.setattr(writing, "annotation_insert", lambda **kwargs: 1 / 0)
    job = run_import(collection, scenes_text(3))
    assert (job.status, job.errors[0]["line"]) == ("failed", None)
    assert not Image.objects.exists()


# --- Hostile and careless files (issue 11, item 6) ---------------------------------------------------------


def run_import_bytes(collection, data: bytes, fmt="jsonl") -> ImportJob:
    job = import_create(
        collection=collection, format=fmt, file=ContentFile(data, name=f"scenes.{fmt}"), start=False
    )
    return import_run(job_id=job.pk)


def test_every_kind_of_bad_line_says_what_and_where_and_nothing_is_written(collection):
    good = jsonl_line(record("good.jpg")).encode()
    lines = [
        good,
        b'{"image": "caf\xe9.jpg"}\n',  # Latin-1, not UTF-8
        jsonl_line(record("nul\x00name.jpg")).encode(),
        jsonl_line(record("big.jpg", objects=[{"id": "x", "type": "person", "bbox": [1, 1, 5, 5]}]))
        .replace("[1, 1, 5, 5]", "[" + "9" * 400 + ", 1, 5, 5]")
        .encode(),
        b"[" * 1000 + b"]" * 1000 + b"\n",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\n",  # a binary file's bytes
    ]
    job = run_import_bytes(collection, b"".join(lines))
    assert job.status == "failed"
    by_line = {error["line"]: error["message"] for error in job.errors}
    assert "on the server" not in " ".join(by_line.values())
    assert by_line[2].startswith("not UTF-8 text (byte 15")
    assert by_line[3].startswith("image: image names may not contain control characters")
    assert "is too large" in by_line[4]
    assert "nested at most 64 levels" in by_line[5]
    assert by_line[6].startswith("not UTF-8 text")
    assert by_line[7].startswith("not valid JSON")
    assert 1 not in by_line and {2, 3, 4, 5, 6, 7} <= set(by_line)
    assert not Image.objects.exists()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            b'{"images": [{"id": 1, "width": ' + b"9" * 400 + b"}]}",
            "the COCO file is refused at line 1 column 32",
        ),
        (b"[" * 1000 + b"]" * 1000, "nested at most 64 levels"),
        (b"\xff\xfe{}", "the COCO file is not UTF-8 text (byte 1"),
        (b'{"images":\n [1,, 2]}', "not valid JSON (Expecting value at line 2 column 5)"),
    ],
)
def test_a_bad_coco_file_says_where(collection, data, expected):
    job = run_import_bytes(collection, data, fmt="coco")
    assert job.status == "failed"
    [error] = job.errors
    assert error["line"] is None and expected in error["message"], error
    assert not Image.objects.exists()
