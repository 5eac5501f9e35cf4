"""A real download, kept whole (issue 37): a few bad entries do not block the rest, the pixels come with
the annotations, what the source flags is never an object of a test, and the engine sees what it may."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command

from annotations.models import Image, ObjectAnnotation
from annotations.selectors.vocabularies import vocabulary_index
from annotations.services.images import image_upload
from engine.bridge import scenes_of
from tests.annotations.images import image_bytes
from tests.datasets.formats import FIXTURES, MAPPING, exported, rows, run_import, zipped

pytestmark = pytest.mark.django_db

VG = FIXTURES / "vg" / "scene_graphs"
OI = FIXTURES / "openimages"


def vg_with_a_zero_width_box(tmp_path) -> bytes:
    """The fixture with one degenerate box, as real Visual Genome files have."""
    folder = tmp_path / "vg"
    folder.mkdir(exist_ok=True)
    for name in ("image_data.json", "scene_graphs.json"):
        data = json.loads((VG / name).read_text())
        if name == "scene_graphs.json":
            data[0]["objects"][3]["w"] = 0  # the woman, 1004
        (folder / name).write_text(json.dumps(data, ensure_ascii=False))
    return zipped(folder)


def test_one_degenerate_box_is_refused_with_its_place_and_the_rest_goes_in(collection, tmp_path, settings):
    settings.IMPORT_MAX_REFUSED_SHARE = 0.5  # the fixture is small: 1 entry in 4
    job = run_import(collection, "vg", vg_with_a_zero_width_box(tmp_path), MAPPING)
    assert job.status == "done", job.errors
    assert (job.images_created, job.entries_refused) == (3, 1)
    assert [e["message"] for e in job.errors] == [
        "scene_graphs.json[0].objects[3]: a box has a positive width and height, not 0 x 160"
    ]
    first = rows(collection)[0]
    assert [o["source"]["id"] for o in first["objects"]] == ["1001", "1002", "1005"]  # 1004 refused


def test_strict_keeps_all_or_nothing(collection, tmp_path):
    job = run_import(collection, "vg", vg_with_a_zero_width_box(tmp_path), MAPPING, strict=True)
    assert job.status == "failed"
    assert not Image.objects.exists()


def test_too_many_refused_entries_refuse_the_file(collection, tmp_path):
    """One bad entry in four (the default share allowed is 5%): more likely a wrong file than a flaw."""
    job = run_import(collection, "vg", vg_with_a_zero_width_box(tmp_path), MAPPING)
    assert job.status == "failed"
    assert "25% of the entries are refused, more than the 5%" in job.message
    assert not Image.objects.exists()


def images_zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(f"VG_100K/{name}", data)
    return buffer.getvalue()


def test_the_images_beside_the_annotations_are_matched_by_name_or_id_and_every_miss_reported(collection):
    pictures = images_zip(
        {
            "101.jpg": image_bytes("JPEG", size=(800, 600)),  # by its name
            "102.png": image_bytes("PNG", size=(640, 480)),  # by its Visual Genome id
            "103.jpg": image_bytes("JPEG", size=(30, 20)),  # not the size its boxes were drawn on
            "999.jpg": image_bytes("JPEG", size=(10, 10)),  # of no image
        }
    )
    job = run_import(collection, "vg", zipped(VG), MAPPING, images=ContentFile(pictures, name="images.zip"))
    assert job.status == "done", (job.message, job.errors)
    assert job.pixels_attached == 2
    with_pixels = dict(Image.objects.values_list("original_name", "format"))
    assert with_pixels == {"101.jpg": "JPEG", "102.jpg": "PNG", "103.jpg": ""}
    report = {section["section"]: dict(section["top"]) for section in job.report}
    assert report["pixels: files that match no image"] == {"999.jpg": 1}
    assert list(report["pixels: files refused"]) == [
        "103.jpg: 103.jpg is 30x20 pixels, but its scene graph was drawn on 320x240: not attached."
    ]
    assert report["pixels: images still without pixels"] == {"103.jpg": 1}


def test_pixels_uploaded_after_the_import_complete_its_images(collection):
    assert run_import(collection, "vg", zipped(VG), MAPPING).status == "done"
    upload = ContentFile(image_bytes("JPEG", size=(320, 240)), name="103.jpg")
    result = image_upload(collection=collection, files=[upload])
    assert ([i.original_name for i in result.attached], result.created, result.rejected) == (
        ["103.jpg"],
        [],
        [],
    )
    assert Image.objects.get(original_name="103.jpg").file
    assert ObjectAnnotation.objects.filter(image__original_name="101.jpg").count() == 4  # untouched


def test_the_command_takes_a_folder_of_images(collection, tmp_path, capsys):
    folder = tmp_path / "images"
    folder.mkdir()
    (folder / "101.jpg").write_bytes(image_bytes("JPEG", size=(800, 600)))
    call_command(
        "import_scenes",
        str(VG),
        collection=collection.name,
        format="vg",
        mapping=str(MAPPING),
        images=str(folder),
    )
    assert "1 image(s) given their pixels" in capsys.readouterr().out
    assert Image.objects.get(original_name="101.jpg").file


def test_depictions_and_group_boxes_are_kept_but_never_objects_of_a_test(collection):
    mapping = FIXTURES / "openimages-mapping.yaml"
    assert run_import(collection, "openimages", zipped(OI), mapping).status == "done"
    stored = {o.image.original_name: o for o in ObjectAnnotation.objects.filter(in_tests=False)}
    assert {name: o.flags for name, o in stored.items()} == {"aa02.jpg": ["group"], "bb03.jpg": ["depiction"]}
    images = Image.objects.order_by("original_name")
    scenes = {
        s.image: s for s in scenes_of([i.pk for i in images], vocabulary_index(collection.vocabulary).core)
    }
    assert [o.type for o in scenes["aa02.jpg"].objects] == ["vehicle"]  # the group of persons left out
    assert scenes["aa02.jpg"].objects[0].id == "o2"  # the annotation's own id for the bicycle
    assert scenes["bb03.jpg"].objects == ()


def test_a_coco_crowd_box_is_a_group_box_and_ids_go_back_as_they_came(collection):
    document = {
        "images": [{"id": 397133, "file_name": "000000397133.jpg", "width": 640, "height": 427}],
        "annotations": [
            {"id": 1768, "image_id": 397133, "category_id": 1, "bbox": [388, 69, 110, 308], "iscrowd": 0},
            {
                "id": 900100397133,
                "image_id": 397133,
                "category_id": 1,
                "bbox": [0, 200, 300, 200.5],
                "iscrowd": 1,
            },
        ],
        "categories": [{"id": 1, "name": "person"}],
    }
    job = run_import(collection, "coco", json.dumps(document).encode())
    assert job.status == "done", job.errors
    crowd = ObjectAnnotation.objects.get(position=1)
    assert (crowd.flags, crowd.in_tests, crowd.source) == (["group"], False, {"id": "900100397133"})
    back = json.loads(exported(collection, "coco"))
    assert back["images"][0]["id"] == 397133
    assert [(a["id"], a["iscrowd"], a["bbox"]) for a in back["annotations"]] == [
        (1768, 0, [388, 69, 110, 308]),
        (900100397133, 1, [0, 200, 300, 200.5]),
    ]
