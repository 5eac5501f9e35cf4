"""The generated Visual Genome download of the import benchmark (benchmarks.vg_download) has Visual
Genome's layout, averages and awkward cases, the same on every run, and a mapping the default vocabulary
takes. (No database: the files are read with json.)"""

from __future__ import annotations

import json
import zipfile
from collections import Counter

import pytest

from annotations.services.vocabularies import DEFAULT_VOCABULARY
from benchmarks.vg_download import mapping_text, write_download
from datasets.formats.mapping import load_mapping
from kernel.vocabulary import parse_vocabulary

IMAGES = 1_000


@pytest.fixture(scope="module")
def download(tmp_path_factory):
    path = tmp_path_factory.mktemp("vg") / "vg.zip"
    written = write_download(path, IMAGES, seed=5)
    with zipfile.ZipFile(path) as archive:
        files = {
            name: json.loads(archive.read(f"{name}.json"))
            for name in ("image_data", "objects", "attributes", "relationships")
        }
    return path, written, files


def test_the_four_files_list_the_same_images_in_the_same_order_with_their_sizes(download):
    _, written, files = download
    ids = [entry["image_id"] for entry in files["image_data"]]
    assert len(ids) == len(set(ids)) == IMAGES
    for name in ("objects", "attributes", "relationships"):
        assert [entry["image_id"] for entry in files[name]] == ids, name
    image = files["image_data"][0]
    assert set(image) == {"width", "url", "height", "image_id", "coco_id", "flickr_id"}
    assert image["url"].endswith(f"/{image['image_id']}.jpg")
    # attributes.json holds the objects of objects.json, some with their attributes.
    for objects, attributes in zip(files["objects"], files["attributes"], strict=True):
        assert [o["object_id"] for o in objects["objects"]] == [
            o["object_id"] for o in attributes["attributes"]
        ]
    assert written.objects == sum(len(e["objects"]) for e in files["objects"])
    assert written.relationships == sum(len(e["relationships"]) for e in files["relationships"])


def test_an_image_holds_as_much_as_visual_genomes_do_on_average_and_they_vary(download):
    _, written, files = download
    per_image = [len(entry["objects"]) for entry in files["objects"]]
    assert 32 < written.objects / IMAGES < 38  # Visual Genome: 35.2
    assert 19 < written.relationships / IMAGES < 24  # 21.4
    assert 23 < written.attribute_values / IMAGES < 29  # 26.2
    assert min(per_image) < 8 and max(per_image) > 120
    names = Counter(o["names"][0] for entry in files["objects"] for o in entry["objects"])
    assert names.most_common(1)[0][0] == "man"
    assert len(names) > 3_000  # a long tail of rare names


def test_the_awkward_cases_of_real_downloads_are_there_in_a_few_percent_of_the_images(download):
    _, _, files = download
    twice = sum(
        1 for entry in files["objects"] if max(Counter(o["object_id"] for o in entry["objects"]).values()) > 1
    )
    alone = 0
    for objects, links in zip(files["objects"], files["relationships"], strict=True):
        known = {o["object_id"] for o in objects["objects"]}
        ends = {link[end]["object_id"] for link in links["relationships"] for end in ("subject", "object")}
        alone += bool(ends - known)
    sizes = {entry["image_id"]: (entry["width"], entry["height"]) for entry in files["image_data"]}
    objects = [(entry["image_id"], o) for entry in files["objects"] for o in entry["objects"]]
    zero = sum(1 for _, o in objects if o["w"] == 0 or o["h"] == 0)
    off = sum(1 for image, o in objects if o["x"] + o["w"] > sizes[image][0])
    odd = sum(1 for _, o in objects if o["names"][0] != o["names"][0].strip().lower())
    singular = sum(
        1 for e in files["relationships"] for link in e["relationships"] if "name" in link["subject"]
    )
    for count in (twice, alone, zero, off):
        assert 0 < count < IMAGES * 0.06, (twice, alone, zero, off)
    assert odd > 0 and singular > 0


def test_the_same_seed_gives_the_same_download_and_zero_width_boxes_can_be_left_out(download, tmp_path):
    path, _, _ = download
    again = write_download(tmp_path / "again.zip", IMAGES, seed=5)
    assert again.path.read_bytes() == path.read_bytes()
    without = write_download(tmp_path / "without.zip", IMAGES, seed=5, zero_width=False)
    with zipfile.ZipFile(without.path) as archive:
        objects = json.loads(archive.read("objects.json"))
    assert not any(o["w"] == 0 for entry in objects for o in entry["objects"])
    assert len(objects) == IMAGES


def test_the_mapping_is_one_the_default_vocabulary_takes():
    vocabulary = parse_vocabulary(json.loads(DEFAULT_VOCABULARY.read_text(encoding="utf-8")))
    mapping = load_mapping(mapping_text().encode(), vocabulary)
    assert (mapping.type_of(["man"], []) or ("",))[0] == "person"
    assert (mapping.type_of(["car"], []) or ("",))[0] == "vehicle"
    assert mapping.type_of(["tree"], []) is None
