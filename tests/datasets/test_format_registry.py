"""The format registry (datasets.formats) is the one list every call site offers, and an unknown
format is refused everywhere with the known ones named, never read as another format. JSON Lines, our
own closed format, refuses a key it does not have on its line (issue 22)."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.base import ContentFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts.roles import Role
from annotations.models import Image
from datasets.formats import UnknownFormat, format_values, jsonl_line, scene_format, scene_formats
from datasets.models import ImportJob
from datasets.services.common import format_named
from datasets.services.creation import import_create
from datasets.services.run import import_run
from frontend.forms import ImportForm
from tests.annotations.images import upload
from tests.datasets.test_import_export import record, run_import
from tests.openapi_document import openapi_document
from vtt_site.errors import ApplicationError

pytestmark = pytest.mark.django_db


def test_every_call_site_offers_exactly_the_registered_formats(client, users, collection):
    values = format_values()
    assert values[:2] == ["jsonl", "coco"]
    assert [value for value, _ in ImportForm().fields["format"].choices] == values
    assert [value for value, _ in ImportJob._meta.get_field("format").choices] == values
    for value in values:
        assert reverse("api:export", args=[collection.pk, value]).endswith(f"/export/{value}/")
    schema = openapi_document()
    assert schema["components"]["schemas"]["FormatEnum"]["enum"] == values
    export = schema["paths"]["/api/v1/collections/{collection_id}/export/{scene_format}/"]["get"]
    parameter = next(p for p in export["parameters"] if p["name"] == "scene_format")
    assert sorted(parameter["schema"]["enum"]) == sorted(values)
    assert set(export["responses"]["200"]["content"]) == {spec.content_type for spec in scene_formats()}
    # The collection page: one export link and one described format per registered format.
    client.force_login(users[Role.REVIEWER])
    page = client.get(reverse("frontend:collection", args=[collection.pk])).content.decode()
    links = re.findall(rf'href="/api/v1/collections/{collection.pk}/export/([^/]+)/"', page)
    assert links == values
    for spec in scene_formats():
        assert spec.description.replace("'", "&#x27;") in page


def test_an_unknown_format_is_refused_by_the_service_the_api_the_commands_and_the_url(
    api, reviewer, collection, tmp_path, capsys
):
    with pytest.raises(ApplicationError) as refused:
        import_create(collection=collection, format="yolo", file=ContentFile(b"{}", name="x"), start=False)
    assert refused.value.code == "unknown_format"
    assert (
        refused.value.message
        == f"There is no scene format 'yolo'; the formats are {', '.join(format_values())}."
    )
    response = api.as_user(reviewer).post(
        f"/api/v1/collections/{collection.pk}/imports/",
        {"file": upload("scenes.txt", b"{}\n"), "format": "yolo"},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["fields"]["format"] == ['"yolo" is not a valid choice.']
    source = tmp_path / "s.jsonl"
    source.write_text(jsonl_line(record()))
    with pytest.raises(CommandError, match="invalid choice: 'yolo'"):
        call_command("import_scenes", str(source), collection=collection.name, format="yolo")
    with pytest.raises(CommandError, match="invalid choice: 'yolo'"):
        call_command("export_scenes", collection=collection.name, format="yolo", out=str(tmp_path / "o"))
    missing = api.as_user(reviewer).get(f"/api/v1/collections/{collection.pk}/export/yolo/")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
    assert not ImportJob.objects.exists()


def test_a_queued_job_whose_format_this_server_does_not_know_fails_with_a_message(collection):
    job = import_create(
        collection=collection,
        format="jsonl",
        file=ContentFile(jsonl_line(record()).encode(), name="s.jsonl"),
        start=False,
    )
    ImportJob.objects.filter(pk=job.pk).update(format="retired")
    job = import_run(job_id=job.pk)
    assert job.status == "failed"
    known = ", ".join(format_values())
    message = f"There is no scene format 'retired'; the formats are {known}. Nothing was imported."
    assert job.errors == [{"line": None, "message": message}]
    assert not Image.objects.exists()


def test_scene_format_takes_a_value_or_a_format_and_refuses_anything_else():
    jsonl = scene_format("jsonl")
    assert scene_format(jsonl) is jsonl
    for value in ("JSONL", "", None, 3, "coco "):
        with pytest.raises(UnknownFormat):
            scene_format(value)
        with pytest.raises(ApplicationError) as refused:  # what the services answer: a 400 naming the formats
            format_named(value)
        assert refused.value.code == "unknown_format" and "jsonl, coco" in refused.value.message


# --- Issue 22: an unknown key in a JSON Lines record ------------------------------------------------------


def test_a_key_the_format_does_not_have_is_refused_on_its_line_and_nothing_is_written(collection):
    good = record("good.jpg")
    misspelt_object = record("o.jpg")
    misspelt_object["objects"][1] = misspelt_object["objects"][1] | {"attributes_know": False}
    lines = [
        jsonl_line(good),
        jsonl_line(record("top.jpg") | {"colour": "red"}),
        jsonl_line(misspelt_object),
        jsonl_line(
            record("r.jpg", relationships=[{"subject": "p", "predicate": "x", "object": "v", "w": 1}])
        ),
        jsonl_line(record("two.jpg") | {"a": 1, "b": 2}),
    ]
    job = run_import(collection, "".join(lines))
    assert job.status == "failed"
    assert job.errors == [
        {
            "line": 2,
            "message": "unknown key 'colour': a scene graph has image, width, height, objects, relationships",
        },
        {
            "line": 3,
            "message": "objects[1]: unknown key 'attributes_know': an object has id, type, bbox, "
            "attributes, attributes_known",
        },
        {
            "line": 4,
            "message": "relationships[0]: unknown key 'w': a relationship has subject, predicate, object",
        },
        {
            "line": 5,
            "message": "unknown keys 'a', 'b': a scene graph has image, width, height, objects, "
            "relationships",
        },
    ]
    assert not Image.objects.exists()


def test_coco_keeps_accepting_the_keys_coco_has(collection):
    document = {
        "info": {"year": 2024},
        "licenses": [{"id": 1, "name": "x"}],
        "images": [{"id": 1, "file_name": "a.jpg", "width": 100, "height": 80, "license": 1}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [1, 2, 30, 40], "segmentation": [], "area": 1}
        ],
        "categories": [{"id": 1, "name": "person", "supercategory": "human"}],
    }
    job = run_import(collection, json.dumps(document), fmt="coco")
    assert job.status == "done", job.errors
