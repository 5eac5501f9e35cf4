"""The mapping proposal on a real download's awkward entries (issue 37): it reads past bad entries and
lists them with their place, it lists the attributes of every name (those of the names it proposes to
drop too), and an Open Images group box is not an object of its name."""

from __future__ import annotations

import io
import json
import shutil
import unicodedata
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotations.selectors.vocabularies import core_vocabulary
from datasets.formats.mapping import load_mapping
from datasets.formats.proposal import SHOWN_PROBLEMS
from tests.datasets.formats import FIXTURES

pytestmark = pytest.mark.django_db

VG = FIXTURES / "vg" / "scene_graphs"


def propose(collection, folder: Path, fmt: str, out: Path) -> tuple[str, str]:
    """The proposal's text, and what the command said on standard error."""
    errors = io.StringIO()
    call_command(
        "propose_mapping", str(folder), collection=collection.name, format=fmt, out=str(out), stderr=errors
    )
    return out.read_text(), errors.getvalue()


def visual_genome(folder: Path, graphs: list[dict]) -> Path:
    """A Visual Genome download of these scene graphs, every image 800 x 600."""
    folder.mkdir()
    images = [{"image_id": g["image_id"], "width": 800, "height": 600} for g in graphs]
    (folder / "image_data.json").write_text(json.dumps(images))
    (folder / "scene_graphs.json").write_text(json.dumps(graphs, ensure_ascii=False))
    return folder


def graph(image_id: int, name: str, width: float = 40) -> dict:
    obj = {"object_id": image_id, "x": 10, "y": 10, "w": width, "h": 50, "names": [name], "attributes": []}
    return {"image_id": image_id, "objects": [obj], "relationships": []}


def test_a_zero_width_box_is_reported_with_its_place_and_the_proposal_is_written(collection, tmp_path):
    folder = tmp_path / "download"
    shutil.copytree(VG, folder)
    graphs = json.loads((folder / "scene_graphs.json").read_text())
    graphs[1]["objects"][3]["w"] = 0  # "Bike " of image 102: a zero-width box, as real downloads have
    (folder / "scene_graphs.json").write_text(json.dumps(graphs, ensure_ascii=False))

    text, said = propose(collection, folder, "vg", tmp_path / "proposed.yaml")

    problem = "scene_graphs.json[1].objects[3]: a box has a positive width and height, not 0 x 60"
    assert f"{folder}: {problem}" in said
    assert "Read past 1 bad entry" in said
    assert f"#   {problem}" in text  # the proposal says what it left out
    proposed = load_mapping(text.encode(), core_vocabulary(collection.vocabulary))
    assert proposed.names["car"] == ("vehicle", ("car",))  # image 101 is counted
    assert "man" in proposed.drop_names and "tree" in proposed.drop_names


def test_bad_entries_are_listed_up_to_a_cap_and_counted_beyond_it(collection, tmp_path):
    bad = SHOWN_PROBLEMS + 3
    graphs = [graph(n, "tree", width=0) for n in range(1, bad + 1)]
    graphs += [graph(n, "car") for n in range(bad + 1, bad + 3)]
    folder = visual_genome(tmp_path / "download", graphs)

    text, said = propose(collection, folder, "vg", tmp_path / "proposed.yaml")

    listed = [line for line in said.splitlines() if "a box has a positive width and height" in line]
    assert len(listed) == SHOWN_PROBLEMS
    assert (
        listed[0]
        == f"{folder}: scene_graphs.json[0].objects[0]: a box has a positive width and height, not 0 x 50"
    )
    assert f"{folder}: and 3 more bad entries." in said
    assert f"# Left out of these counts: {bad} bad entries of the source; the first {SHOWN_PROBLEMS}:" in text
    assert text.count("#   scene_graphs.json[") == SHOWN_PROBLEMS
    assert '- "car"  # 2 objects' in text and "tree" not in text.split("# Left out")[1].split("types:")[1]


def test_a_source_with_nothing_readable_proposes_nothing(collection, tmp_path):
    folder = visual_genome(tmp_path / "download", [graph(1, "tree", width=0)])
    errors = io.StringIO()
    with pytest.raises(CommandError, match=r"No mapping proposed: nothing in .* could be read \(no object\)"):
        call_command(
            "propose_mapping",
            str(folder),
            collection=collection.name,
            format="vg",
            out=str(tmp_path / "proposed.yaml"),
            stderr=errors,
        )
    assert "scene_graphs.json[0].objects[0]: a box has a positive width" in errors.getvalue()
    assert not (tmp_path / "proposed.yaml").exists()


def test_the_attributes_of_names_proposed_for_drop_are_listed(collection, tmp_path):
    text, _ = propose(collection, VG, "vg", tmp_path / "proposed.yaml")
    proposed = load_mapping(text.encode(), core_vocabulary(collection.vocabulary))
    # man (standing, tall, walking), woman (walking), tree (green), mädchen (sitting), 行人 (running)
    # are names proposed for drop: what their objects carry is listed beside each name...
    assert '- "man"  # 1 object; attributes: standing 1, tall 1, walking 1' in text
    assert '- "tree"  # 1 object; attributes: green 1' in text
    assert '- "car"  # 1 object; attributes: parked 1, white 1' in text
    # ... and every attribute name is in the mapping: a value of a type is mapped to it (ready for when
    # "man" moves to person), the others are dropped.
    assert proposed.attributes["person"] == {"walking": "walking", "sitting": "sitting", "running": "running"}
    assert '"walking": "walking"  # 2 objects of names proposed for drop' in text
    assert {"standing", "tall", "green", "white", "black"} <= proposed.drop_attributes


def test_an_open_images_group_box_is_counted_apart_not_as_a_person(collection, tmp_path):
    text, _ = propose(collection, FIXTURES / "openimages", "openimages", tmp_path / "proposed.yaml")
    proposed = load_mapping(text.encode(), core_vocabulary(collection.vocabulary))
    # The fixture's one Person box is a group box (IsGroupOf 1, image aa02).
    assert "person" not in proposed.names
    assert (
        "# Not counted as objects: 1 group box (several objects in one box, which the import drops): person 1"
        in text
    )
    # The man of cc04 is only in a relationship row, with no box of his own: not an object (nothing invented).
    assert '- "man"  # 1 object; attributes: standing 1' in text


def test_names_in_either_unicode_form_are_one_name(collection, tmp_path):
    composed = "Señora"
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed
    folder = visual_genome(tmp_path / "download", [graph(1, composed), graph(2, decomposed)])
    text, _ = propose(collection, folder, "vg", tmp_path / "proposed.yaml")
    assert f'- "{composed.casefold()}"  # 2 objects' in text
