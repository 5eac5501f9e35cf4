"""GQA scene graphs through the registry: the fixture's awkward cases, a round trip, every bad entry
refused with its place and nothing written."""

from __future__ import annotations

import json

import pytest

from annotations.models import Image, Stage
from tests.datasets.formats import FIXTURES, MAPPING, exported, rows, run_import, without_source, zipped
from tests.datasets.test_import_export import run_import as run_jsonl
from tests.datasets.test_import_export import scenes_text
from tests.factories import CollectionFactory

pytestmark = pytest.mark.django_db

GQA = FIXTURES / "gqa" / "sceneGraphs.json"


def report(job):
    return {section["section"]: dict(section["top"]) for section in job.report}


def test_the_fixture_reads_to_drafts_with_the_awkward_cases_handled(collection):
    job = run_import(collection, "gqa", GQA.read_bytes(), MAPPING)
    assert job.status == "done", job.errors
    assert (job.lines_total, job.images_created) == (3, 3)
    assert set(Image.objects.values_list("stage", flat=True)) == {Stage.ANNOTATE}
    records = rows(collection)
    assert [r["image"] for r in records] == ["2001.jpg", "2002.jpg", "n3003.jpg"]
    first = records[0]
    assert [(o["type"], o["bbox"]) for o in first["objects"]] == [
        ("person", [40.0, 100.0, 60.0, 200.0]),
        ("person", [150.0, 90.0, 55.0, 210.0]),
        ("vehicle", [220.0, 60.0, 270.0, 250.0]),
        ("person", [10.0, 300.0, 30.0, 70.0]),  # object "5", given twice: Mädchen, then girl
    ]
    assert first["relationships"] == [
        {"subject": "o1", "predicate": "closer than", "object": "o4"},  # the girl is behind the man
        {"subject": "o1", "predicate": "driving or riding", "object": "o3"},
        {"subject": "o2", "predicate": "closer than", "object": "o3"},
    ]
    assert [(o["type"], o["bbox"]) for o in records[1]["objects"]] == [
        ("person", [100.0, 150.0, 40.0, 120.0]),  # 行人
        ("vehicle", [600.0, 300.0, 40.0, 50.0]),  # clipped at the right edge
    ]
    assert all(not o["attributes_known"] for r in records for o in r["objects"])
    counts = report(job)
    assert counts["merged: objects listed twice under one id"] == {"girl": 1}
    assert counts["dropped: relationships whose subject or object has no box"] == {"talking to": 1}
    # What the source said is kept group by group; the GQA ids and names stay with each object.
    assert (first["objects"][0]["attributes"], first["objects"][0]["unknown"]) == (
        ["male", "adult", "standing still"],
        ["place", "carrying", "hat", "interacting"],
    )
    assert first["objects"][3]["source"] == {"id": "5", "names": ["Mädchen", "girl"]}
    assert first["source_id"] == "2001"
    assert counts["dropped: boxes outside the image"] == {"vehicle": 1}  # car "7", right of the image
    assert counts["dropped: object names the mapping drops"] == {"sky": 1}
    assert counts["dropped: attributes not in the mapping"] == {"young": 1}
    assert counts["dropped: predicates not in the mapping"] == {"to the left of": 1}


def test_a_zip_of_scene_graph_files_is_read_file_after_file(collection, tmp_path):
    folder = tmp_path / "gqa"
    folder.mkdir()
    document = json.loads(GQA.read_text())
    (folder / "train_sceneGraphs.json").write_text(json.dumps({"2001": document["2001"]}))
    (folder / "val_sceneGraphs.json").write_text(json.dumps({k: document[k] for k in ("2002", "n3003")}))
    job = run_import(collection, "gqa", zipped(folder), MAPPING)
    assert (job.status, job.lines_total) == ("done", 3)
    reference = CollectionFactory(vocabulary=collection.vocabulary)
    run_import(reference, "gqa", GQA.read_bytes(), MAPPING)
    # json.dumps above kept one of object "5"'s two entries: its source names differ, nothing else.
    assert without_source(rows(collection)) == without_source(rows(reference))


def test_export_then_import_gives_the_same_rows(collection):
    assert run_jsonl(collection, scenes_text(20), mark_reviewed=True).status == "done"
    document = json.loads(exported(collection, "gqa"))
    assert all(not key.endswith(".jpg") for key in document)  # keyed by image id, as GQA's are
    fresh = CollectionFactory(vocabulary=collection.vocabulary)
    job = run_import(fresh, "gqa", exported(collection, "gqa"), complete=True)
    assert job.status == "done", job.errors
    assert without_source(rows(fresh)) == rows(collection)


def test_an_import_exports_back_with_its_own_ids_names_and_numbers(collection):
    """Field by field against the input: image ids, object ids, names, whole-pixel boxes."""
    assert run_import(collection, "gqa", GQA.read_bytes(), MAPPING).status == "done"
    source, back = json.loads(GQA.read_text()), json.loads(exported(collection, "gqa"))
    assert sorted(back) == ["2001", "2002", "n3003"]
    man, original = back["2001"]["objects"]["1"], source["2001"]["objects"]["1"]
    assert {k: man[k] for k in ("name", "x", "y", "w", "h")} == {
        k: original[k] for k in ("name", "x", "y", "w", "h")
    }
    assert json.dumps(man["x"]) == json.dumps(original["x"])  # 40, not 40.0
    assert back["2001"]["objects"]["5"]["name"] == "Mädchen"


def test_every_bad_entry_is_refused_with_its_place_and_nothing_is_written(collection):
    document = json.loads(GQA.read_text())
    document["2001"]["objects"]["3"]["x"] = "left"
    document["2002"]["objects"]["12"]["relations"][0] = {"object": "11"}
    document["n3003"]["width"] = 0
    document["n4004"] = ["not", "an", "image"]
    document["n5005"] = {
        "width": 10,
        "height": 10,
        "objects": {"1": {"name": "man", "x": 1, "y": 1, "w": 5, "h": 5, "attributes": "tall"}},
    }
    job = run_import(collection, "gqa", json.dumps(document, ensure_ascii=False).encode(), MAPPING)
    assert job.status == "failed"
    assert [e["message"] for e in job.errors] == [
        '["2001"].objects["3"].x: must be a number, not \'left\'',
        '["2002"].objects["12"].relations[0]: a relation is {"name", "object"}, not an object',
        '["n3003"].width: must be a whole number of pixels from 1 to 100000, not 0',
        '["n4004"]: an image\'s scene graph is an object, not a list',
        '["n5005"].objects["1"].attributes: must be a list of names, not \'tall\'',
    ]
    assert not Image.objects.exists()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            b'{"2001": {"width": 10, "height": 10, "objects": {}}, "2002": {"wid',
            "the GQA file: cannot be read",
        ),
        (b'{"1": ' + b"[" * 100 + b"]" * 100 + b"}", "nested at most 64 levels"),
        (b"\xff\xfe{}", "cannot be read"),
    ],
)
def test_a_file_that_cannot_be_read_says_so(collection, content, expected):
    job = run_import(collection, "gqa", content, MAPPING)
    assert job.status == "failed"
    assert expected in job.errors[0]["message"], job.errors
    assert not Image.objects.exists()
