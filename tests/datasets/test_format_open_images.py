"""Open Images V6/V7 through the registry: the fixture's awkward cases (a group box among them), a round
trip, every bad entry refused with its place and nothing written."""

from __future__ import annotations

import csv
import io
import shutil
import zipfile

import pytest

from annotations.models import Image, Stage
from tests.datasets.formats import FIXTURES, exported, rows, run_import, without_source, zipped
from tests.datasets.test_import_export import run_import as run_jsonl
from tests.datasets.test_import_export import scenes_text
from tests.factories import CollectionFactory

pytestmark = pytest.mark.django_db

OI = FIXTURES / "openimages"
MAPPING = FIXTURES / "openimages-mapping.yaml"


def report(job):
    return {section["section"]: dict(section["top"]) for section in job.report}


def boxes(record):
    return [(o["type"], [round(v, 6) for v in o["bbox"]]) for o in record["objects"]]


def test_the_fixture_reads_to_drafts_with_the_awkward_cases_handled(collection):
    job = run_import(collection, "openimages", zipped(OI), MAPPING)
    assert job.status == "done", job.errors
    assert (job.lines_total, job.images_created) == (4, 4)
    assert set(Image.objects.values_list("stage", flat=True)) == {Stage.ANNOTATE}
    aa01, aa02, bb03, cc04 = rows(collection)
    assert (aa01["image"], aa01["width"], aa01["height"]) == ("aa01.jpg", 1000, 800)
    assert boxes(aa01) == [
        ("person", [100.0, 200.0, 100.0, 400.0]),  # Man, listed twice
        ("vehicle", [400.0, 400.0, 400.0, 320.0]),
        ("person", [900.0, 240.0, 100.0, 400.0]),  # Woman, past the right edge: clipped
    ]
    assert aa01["relationships"] == [{"subject": "o1", "predicate": "driving or riding", "object": "o2"}]
    assert [o.get("flags", []) for o in aa01["objects"]] == [[], ["occluded"], ["truncated"]]
    assert aa01["objects"][0]["source"] == {"label": "/m/04yx4", "names": ["Man"]}
    assert aa01["source_id"] == "aa01"
    # aa02: the group box of persons is kept, flagged (never an object of a test); the girl riding the
    # bicycle (Fahrrad) has no box row of her own: her relationship is dropped, no box is made up.
    assert boxes(aa02) == [("person", [0.0, 96.0, 320.0, 384.0]), ("vehicle", [352.0, 288.0, 128.0, 144.0])]
    assert aa02["objects"][0]["flags"] == ["group"]
    assert aa02["relationships"] == []
    assert boxes(bb03) == [("vehicle", [40.0, 60.0, 720.0, 480.0])]
    assert bb03["objects"][0]["flags"] == ["depiction"]
    assert (cc04["image"], cc04["objects"]) == ("cc04.jpg", [])  # only in the relationship file
    assert all(not o["attributes_known"] for r in (aa01, aa02, bb03, cc04) for o in r["objects"])
    counts = report(job)
    assert counts["mapped: group boxes (several objects in one box) (kept, never an object of a test)"] == {
        "person": 1
    }
    assert counts["mapped: depictions (kept, never an object of a test)"] == {"vehicle": 1}
    assert counts["merged: objects listed twice under one id"] == {"man": 1}
    assert counts["dropped: relationships whose subject or object has no box"] == {"ride": 2}
    assert counts["mapped: attributes of person"]["standing -> standing still"] == 1  # the "is" row
    assert counts["dropped: predicates the mapping drops"] == {"interacts_with": 1}
    assert counts["mapped: objects to vehicle"] == {"car": 1, "fahrrad": 1, "bus": 1}


def test_with_the_option_objects_found_only_in_relationships_are_added_and_marked(collection):
    job = run_import(collection, "openimages", zipped(OI), MAPPING, add_relationship_objects=True)
    assert job.status == "done", job.errors
    _, aa02, _, cc04 = rows(collection)
    girl = aa02["objects"][2]
    assert (girl["type"], girl["flags"]) == ("person", ["added"])
    assert aa02["relationships"] == [{"subject": "o3", "predicate": "driving or riding", "object": "o2"}]
    assert [o["flags"] for o in cc04["objects"]] == [["added"], ["added"]]


def test_an_import_exports_back_with_its_labels_flags_and_precision(collection):
    """Field by field against the input: ImageID, LabelName, the coordinates as written, the flags, and
    both description files (issue 37: the class descriptions came back empty, the flags zeroed)."""
    assert run_import(collection, "openimages", zipped(OI), MAPPING).status == "done"
    archive = zipfile.ZipFile(io.BytesIO(exported(collection, "openimages")))
    exported_boxes = list(csv.DictReader(io.StringIO(archive.read("boxes.csv").decode())))
    source_boxes = {
        (r["ImageID"], r["LabelName"], r["XMin"]): r
        for r in csv.DictReader(io.StringIO((OI / "boxes.csv").read_text()))
    }
    flags = ("IsOccluded", "IsTruncated", "IsGroupOf", "IsDepiction", "IsInside")
    for row in exported_boxes:
        match = [
            r
            for (image, label, _), r in source_boxes.items()
            if (image, label) == (row["ImageID"], row["LabelName"])
        ]
        assert match, row
        original = match[0]
        assert {f: row[f] for f in flags} == {f: original[f] for f in flags}, row["LabelName"]
        if float(original["XMax"]) > 1:
            continue  # the woman past the right edge was clipped to it: her box is the clipped one
        for column in ("XMin", "XMax", "YMin", "YMax"):
            # The same number, written no longer than the source wrote it (no 0.8799999999999999).
            assert float(row[column]) == float(original[column]), (column, row, original)
            assert len(row[column]) <= max(len(original[column]), 3), (column, row[column])
    classes = archive.read("class-descriptions.csv").decode()
    assert "/m/04yx4,Man" in classes and "/m/0k4j,Car" in classes
    assert "attributes-description.csv" in archive.namelist()


def test_without_image_sizes_the_sizes_are_those_of_the_images_in_the_collection(collection):
    for name, size in (("aa01.jpg", (1000, 800)), ("aa02.jpg", (640, 480)), ("bb03.jpg", (800, 600))):
        Image.objects.create(collection=collection, original_name=name, width=size[0], height=size[1])
    job = run_import(collection, "openimages", zipped(OI, skip=("image_sizes.csv",)), MAPPING)
    assert job.status == "failed"  # cc04 is in no collection and has no size
    assert [e["message"] for e in job.errors] == [
        "image cc04: has no size: upload cc04.jpg first, or give it in image_sizes.csv"
    ]
    Image.objects.create(collection=collection, original_name="cc04.jpg", width=400, height=300)
    job = run_import(collection, "openimages", zipped(OI, skip=("image_sizes.csv",)), MAPPING)
    assert (job.status, job.images_updated) == ("done", 4)


def test_export_then_import_gives_the_same_rows(collection):
    assert run_jsonl(collection, scenes_text(20), mark_reviewed=True).status == "done"
    archive = exported(collection, "openimages")
    assert sorted(zipfile.ZipFile(io.BytesIO(archive)).namelist()) == [
        "attributes-description.csv",
        "boxes.csv",
        "class-descriptions.csv",
        "image_sizes.csv",
        "relationships.csv",
    ]
    fresh = CollectionFactory(vocabulary=collection.vocabulary)
    job = run_import(fresh, "openimages", archive, complete=True)
    assert job.status == "done", job.errors
    before, after = rows(collection), without_source(rows(fresh))
    # Boxes travel normalised to the image's size: back in pixels they are the same to a billionth.
    for record in (*before, *after):
        for obj in record["objects"]:
            obj["bbox"] = [round(v, 9) for v in obj["bbox"]]
    assert after == before


def _bad(tmp_path, file: str, edit) -> bytes:
    folder = tmp_path / "oi"
    shutil.copytree(OI, folder)
    lines = (folder / file).read_text().splitlines()
    edit(lines)
    (folder / file).write_text("\n".join(lines) + "\n")
    return zipped(folder)


@pytest.mark.parametrize(
    ("file", "edit", "expected"),
    [
        (
            "boxes.csv",
            lambda lines: lines.__setitem__(2, lines[2].replace("0.4,0.8", "abc,0.8", 1)),
            "boxes.csv line 3: XMin: must be a number from 0 to 1, not 'abc'",
        ),
        (
            "boxes.csv",
            lambda lines: lines.__setitem__(7, lines[7].replace("0.55,0.75", "0.75,0.55", 1)),
            "boxes.csv line 8: a box has XMin < XMax and YMin < YMax",
        ),
        (
            "boxes.csv",
            lambda lines: lines.__setitem__(6, lines[6].replace(",0,0,1,0,0,", ",0,0,yes,0,0,", 1)),
            "boxes.csv line 7: IsGroupOf: must be 0 or 1, not 'yes'",
        ),
        (
            "boxes.csv",
            lambda lines: lines.insert(1, lines.pop(8)),
            "boxes.csv line 3: image 'aa01' comes after 'bb03' (line 2): the rows must be sorted by ImageID",
        ),
        (
            "relationships.csv",
            lambda lines: lines.__setitem__(1, lines[1].replace(",ride", ",", 1).replace("/m/0k4j", "", 1)),
            "relationships.csv line 2: LabelName2: must be a label",
        ),
        (
            "image_sizes.csv",
            lambda lines: lines.__setitem__(2, "aa02,640,wide"),
            "image_sizes.csv line 3: Width and Height are whole numbers of pixels",
        ),
    ],
)
def test_every_bad_entry_is_refused_with_its_place_and_nothing_is_written(
    collection, tmp_path, file, edit, expected
):
    job = run_import(collection, "openimages", _bad(tmp_path, file, edit), MAPPING)
    assert job.status == "failed"
    assert [e["message"] for e in job.errors if e["message"].startswith(expected.split(":")[0])], job.errors
    assert any(e["message"].startswith(expected) for e in job.errors), job.errors
    assert not Image.objects.exists()


def test_an_archive_without_a_box_or_relationship_file_is_refused(collection, tmp_path):
    folder = tmp_path / "names-only"
    folder.mkdir()
    shutil.copy(OI / "class-descriptions-boxable.csv", folder)
    job = run_import(collection, "openimages", zipped(folder), MAPPING)
    assert job.errors[0]["message"].startswith("an Open Images import is a zip archive of its box CSV")
    job = run_import(collection, "openimages", b"\x00\x01 not a zip")
    assert job.status == "failed" and not Image.objects.exists()
