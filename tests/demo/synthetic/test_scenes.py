"""Synthetic scene graphs: validity against the vocabulary file, determinism, and the promised statistics.

Runs without Django or a database:
    .venv/bin/python -m pytest -p no:django -p no:cacheprovider tests/demo/synthetic -q
"""

from __future__ import annotations

import json
import re
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from demo.synthetic.scenes import (
    depth_margin,
    generate_scene,
    generate_scenes,
    street_layout,
    visible_wheels,
    wheel_occluders,
)

VOCABULARY_FILE = Path(__file__).resolve().parents[3] / "annotations" / "vocabularies" / "urban-street.json"
UPRIGHT = {"standing still", "walking", "crossing the street"}
SAMPLE_SIZE = 3000


@pytest.fixture(scope="module")
def vocabulary() -> dict:
    return json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def scenes() -> list[dict]:
    return list(generate_scenes(SAMPLE_SIZE, seed=2015))


def known_objects(scenes: list[dict], kind: str) -> list[dict]:
    return [o for s in scenes for o in s["objects"] if o["type"] == kind and o["attributes_known"]]


def relations(scene: dict, predicate: str) -> list[tuple[str, str]]:
    return [(r["subject"], r["object"]) for r in scene["relationships"] if r["predicate"] == predicate]


def bottom(obj: dict) -> float:
    return obj["bbox"][1] + obj["bbox"][3]


def boxes_overlap(a: dict, b: dict) -> bool:
    ax, ay, aw, ah = a["bbox"]
    bx, by, bw, bh = b["bbox"]
    return min(ax + aw, bx + bw) > max(ax, bx) and min(ay + ah, by + bh) > max(ay, by)


def share(objects: list[dict], value: str) -> float:
    return sum(value in o["attributes"] for o in objects) / len(objects)


# --------------------------------------------------------------------------------------------------
# Validity against the vocabulary.
# --------------------------------------------------------------------------------------------------


def assert_valid(scene: dict, vocabulary: dict) -> None:
    assert set(scene) == {"image", "width", "height", "objects", "relationships"}
    width, height = scene["width"], scene["height"]
    types = vocabulary["types"]
    by_id = {}
    for number, obj in enumerate(scene["objects"], start=1):
        assert set(obj) == {"id", "type", "bbox", "attributes", "attributes_known"}
        assert obj["id"] == f"o{number}"
        assert obj["type"] in types
        x, y, w, h = obj["bbox"]
        assert all(isinstance(v, (int, float)) and round(v, 1) == v for v in obj["bbox"])
        assert x >= 0 and y >= 0 and w >= 4 and h >= 4
        assert x + w <= width and y + h <= height
        assert isinstance(obj["attributes_known"], bool)
        if not obj["attributes_known"]:
            assert obj["attributes"] == []
        else:
            assert_attributes_follow_groups(obj, types[obj["type"]]["attribute_groups"])
        by_id[obj["id"]] = obj
    rules = {r["name"]: r for r in vocabulary["relationships"]}
    seen = set()
    for relation in scene["relationships"]:
        assert set(relation) == {"subject", "predicate", "object"}
        rule = rules[relation["predicate"]]
        subject, target = by_id[relation["subject"]], by_id[relation["object"]]
        assert subject is not target
        assert subject["type"] in rule["subject_types"] and target["type"] in rule["object_types"]
        key = (relation["subject"], relation["predicate"], relation["object"])
        assert key not in seen
        if rule["symmetric"]:
            assert (relation["object"], relation["predicate"], relation["subject"]) not in seen
        seen.add(key)


def assert_attributes_follow_groups(obj: dict, groups: list[dict]) -> None:
    attributes = obj["attributes"]
    assert len(attributes) == len(set(attributes))
    allowed = {value for group in groups for value in group["values"]}
    assert set(attributes) <= allowed, set(attributes) - allowed
    for group in groups:
        present = [value for value in group["values"] if value in attributes]
        if group["exclusive"]:
            assert len(present) == 1, (group["name"], attributes)
        else:
            assert len(present) <= 1


def test_every_scene_is_valid_against_the_vocabulary(scenes, vocabulary):
    for scene in scenes:
        assert_valid(scene, vocabulary)


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 2**32), width=st.integers(64, 2000), height=st.integers(64, 2000))
def test_scenes_of_any_size_are_valid(seed, width, height):
    vocabulary = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    for scene in generate_scenes(4, seed, width=width, height=height):
        assert (scene["width"], scene["height"]) == (width, height)
        assert_valid(scene, vocabulary)


def test_relationships_are_complete_for_depth_size_and_height(scenes):
    """Every pair gets a definite answer: a pair is "closer than" one way unless its depths are close."""
    for scene in scenes[:300]:
        objects = scene["objects"]
        closer = set(relations(scene, "closer than"))
        larger = set(relations(scene, "larger than"))
        for a, b in combinations(objects, 2):
            assert not ((a["id"], b["id"]) in closer and (b["id"], a["id"]) in closer)
            if a["type"] == b["type"] == "vehicle":
                assert not ((a["id"], b["id"]) in larger and (b["id"], a["id"]) in larger)


# --------------------------------------------------------------------------------------------------
# Determinism.
# --------------------------------------------------------------------------------------------------


def dump(scenes) -> str:
    return "\n".join(json.dumps(scene, sort_keys=True) for scene in scenes)


def test_same_seed_gives_the_same_scenes_byte_for_byte():
    assert dump(generate_scenes(60, seed=11)) == dump(generate_scenes(60, seed=11))


def test_different_seeds_give_different_scenes():
    first, second = list(generate_scenes(20, seed=1)), list(generate_scenes(20, seed=2))
    assert sum(a["objects"] != b["objects"] for a, b in zip(first, second, strict=True)) >= 18


def test_image_names_follow_prefix_seed_and_index():
    names = [s["image"] for s in generate_scenes(3, seed=42, prefix="athens")]
    assert names == ["athens-42-000000.png", "athens-42-000001.png", "athens-42-000002.png"]
    assert all(re.fullmatch(r"synthetic-7-\d{6}\.png", s["image"]) for s in generate_scenes(2, seed=7))


def test_generate_scene_depends_only_on_the_generator_state_and_name():
    one = generate_scene(np.random.default_rng(5), "x.png", 800, 600)
    two = generate_scene(np.random.default_rng(5), "x.png", 800, 600)
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)
    assert (one["width"], one["height"], one["image"]) == (800, 600, "x.png")


# --------------------------------------------------------------------------------------------------
# Counts and attribute frequencies.
# --------------------------------------------------------------------------------------------------


def test_object_counts_vary_around_five_people_and_three_vehicles(scenes):
    people = np.array([sum(o["type"] == "person" for o in s["objects"]) for s in scenes])
    vehicles = np.array([sum(o["type"] == "vehicle" for o in s["objects"]) for s in scenes])
    assert 4.3 <= people.mean() <= 5.7 and people.max() <= 14
    assert 2.5 <= vehicles.mean() <= 3.5 and vehicles.max() <= 8
    assert people.std() >= 2.5  # crowded and empty streets both occur
    assert (people <= 1).mean() >= 0.1 and (people >= 10).mean() >= 0.05


def test_about_four_percent_of_objects_have_unknown_attributes(scenes):
    objects = [o for s in scenes for o in s["objects"]]
    assert 0.025 <= sum(not o["attributes_known"] for o in objects) / len(objects) <= 0.055


PERSON_RANGES = {
    "male": (0.45, 0.55),
    "female": (0.45, 0.55),
    "child": (0.1, 0.25),
    "adult": (0.75, 0.9),
    "standing still": (0.15, 0.4),
    "walking": (0.3, 0.55),
    "running": (0.01, 0.07),
    "sitting": (0.08, 0.22),
    "crossing the street": (0.08, 0.2),
    "on sidewalk": (0.65, 0.85),
    "on street": (0.15, 0.35),
    "carrying something": (0.25, 0.45),
    "wearing a hat": (0.2, 0.35),
    "interacting with another object": (0.1, 0.25),
}
VEHICLE_RANGES = {
    "car": (0.35, 0.55),
    "truck": (0.08, 0.2),
    "bus": (0.06, 0.16),
    "motorcycle": (0.08, 0.18),
    "bicycle": (0.14, 0.28),
    "light-colored": (0.4, 0.6),
    "dark-colored": (0.4, 0.6),
    "moving": (0.4, 0.6),
    "parked": (0.4, 0.6),
    "none": (0.15, 0.4),
    "one": (0.15, 0.35),
    "two": (0.3, 0.5),
    "more than two": (0.03, 0.12),
    "interacting with another object": (0.15, 0.35),
}


@pytest.mark.parametrize(("kind", "ranges"), [("person", PERSON_RANGES), ("vehicle", VEHICLE_RANGES)])
def test_attribute_frequencies_stay_in_their_ranges(scenes, kind, ranges):
    objects = known_objects(scenes, kind)
    for value, (low, high) in ranges.items():
        assert low <= share(objects, value) <= high, (value, share(objects, value))


# --------------------------------------------------------------------------------------------------
# Correlations of the scene model.
# --------------------------------------------------------------------------------------------------


def test_children_are_shorter_than_adults_at_the_same_depth(scenes):
    compared = 0
    for scene in scenes:
        upright = [
            o
            for o in scene["objects"]
            if o["attributes_known"]
            and o["type"] == "person"
            and UPRIGHT & set(o["attributes"])
            and o["bbox"][1] > 0
        ]
        for a, b in combinations(upright, 2):
            if abs(bottom(a) - bottom(b)) > 1.0 or ("child" in a["attributes"]) == (
                "child" in b["attributes"]
            ):
                continue
            child, adult = (a, b) if "child" in a["attributes"] else (b, a)
            assert child["bbox"][3] < adult["bbox"][3]
            compared += 1
    assert compared >= 30


def test_children_are_usually_next_to_an_adult(scenes):
    near, total = 0, 0
    for scene in scenes:
        people = [o for o in scene["objects"] if o["type"] == "person" and o["attributes_known"]]
        adults = [o for o in people if "adult" in o["attributes"]]
        for child in (o for o in people if "child" in o["attributes"]):
            total += 1
            reach = 2.5 * child["bbox"][3]
            near += any(
                abs(bottom(child) - bottom(a)) < 0.15 * child["bbox"][3]
                and abs(child["bbox"][0] - a["bbox"][0]) < reach
                for a in adults
            )
    assert near / total >= 0.6


def test_people_on_the_street_mostly_cross_or_use_a_vehicle(scenes):
    on_street, explained = 0, 0
    for scene in scenes:
        users = {
            s for s, _ in relations(scene, "driving or riding") + relations(scene, "entering or exiting")
        }
        for obj in scene["objects"]:
            if obj["type"] == "person" and "on street" in obj["attributes"]:
                on_street += 1
                explained += "crossing the street" in obj["attributes"] or obj["id"] in users
    assert explained / on_street >= 0.85


def test_sitting_people_are_on_the_sidewalk_unless_riding(scenes):
    for scene in scenes:
        riders = {s for s, _ in relations(scene, "driving or riding")}
        for obj in scene["objects"]:
            if "sitting" in obj["attributes"] and obj["id"] not in riders:
                assert "on sidewalk" in obj["attributes"]


def test_running_is_rare_and_crossing_happens_on_the_street(scenes):
    people = known_objects(scenes, "person")
    assert share(people, "running") < 0.07
    assert all("on street" in o["attributes"] for o in people if "crossing the street" in o["attributes"])


def test_riders_overlap_their_two_wheeler_and_both_interact(scenes):
    ridden = 0
    for scene in scenes:
        by_id = {o["id"]: o for o in scene["objects"]}
        riders = relations(scene, "driving or riding")
        for person_id, vehicle_id in riders:
            person, vehicle = by_id[person_id], by_id[vehicle_id]
            assert boxes_overlap(person, vehicle)
            if person["attributes_known"]:
                assert {"interacting with another object", "on street"} <= set(person["attributes"])
            if vehicle["attributes_known"]:
                assert (
                    "moving" in vehicle["attributes"]
                    and "interacting with another object" in vehicle["attributes"]
                )
                assert {"bicycle", "motorcycle"} & set(vehicle["attributes"])
            ridden += 1
        ridden_ids = {v for _, v in riders}
        for obj in scene["objects"]:  # nothing rides itself along: every moving two-wheeler has a rider
            if {"moving"} <= set(obj["attributes"]) and {"bicycle", "motorcycle"} & set(obj["attributes"]):
                assert obj["id"] in ridden_ids
    assert ridden >= 200


def test_people_entering_or_exiting_stand_next_to_a_parked_vehicle(scenes):
    count = 0
    for scene in scenes:
        by_id = {o["id"]: o for o in scene["objects"]}
        for person_id, vehicle_id in relations(scene, "entering or exiting"):
            person, vehicle = by_id[person_id], by_id[vehicle_id]
            if vehicle["attributes_known"]:
                assert (
                    "parked" in vehicle["attributes"]
                    and "interacting with another object" in vehicle["attributes"]
                )
                assert {"car", "truck", "bus"} & set(vehicle["attributes"])
            px, _, pw, _ = person["bbox"]
            vx, _, vw, _ = vehicle["bbox"]
            gap = max(vx - (px + pw), px - (vx + vw), 0.0)
            assert gap <= pw  # side by side in the picture, not across the street
            count += 1
    assert count >= 100


def test_walking_together_means_side_by_side_at_similar_depth(scenes):
    pairs = 0
    for scene in scenes:
        by_id = {o["id"]: o for o in scene["objects"]}
        closer = set(relations(scene, "closer than"))
        for a, b in relations(scene, "walking together"):
            assert (a, b) not in closer and (b, a) not in closer
            first, second = by_id[a], by_id[b]
            if first["attributes_known"] and second["attributes_known"]:
                motions = {"walking", "crossing the street", "running"}
                assert motions & set(first["attributes"]) == motions & set(second["attributes"]) != set()
            pairs += 1
    assert pairs >= 300


def test_talking_people_are_close_and_not_running(scenes):
    for scene in scenes:
        by_id = {o["id"]: o for o in scene["objects"]}
        for a, b in relations(scene, "talking"):
            first, second = by_id[a], by_id[b]
            gap = abs((first["bbox"][0] + first["bbox"][2] / 2) - (second["bbox"][0] + second["bbox"][2] / 2))
            assert gap < 2.5 * max(first["bbox"][3], second["bbox"][3])
            assert "running" not in first["attributes"] + second["attributes"]


def test_closer_than_is_antisymmetric_transitive_and_follows_the_ground(scenes):
    for scene in scenes[:1000]:
        by_id = {o["id"]: o for o in scene["objects"]}
        closer = set(relations(scene, "closer than"))
        riders = {s for s, _ in relations(scene, "driving or riding")}
        for a, b in closer:
            assert (b, a) not in closer
            if a not in riders and b not in riders:
                assert bottom(by_id[a]) > bottom(by_id[b])  # nearer ground points are lower in the image
            for c in (c for x, c in closer if x == b):
                assert (a, c) in closer


def test_occluding_implies_overlap_and_closer_than(scenes):
    occlusions = 0
    for scene in scenes:
        by_id = {o["id"]: o for o in scene["objects"]}
        closer = set(relations(scene, "closer than"))
        for a, b in relations(scene, "occluding"):
            assert (a, b) in closer
            assert boxes_overlap(by_id[a], by_id[b])
            occlusions += 1
    assert occlusions >= 1000


def test_perspective_scale_is_proportional_to_the_distance_below_the_horizon(scenes):
    """An upright adult without a hat is 1.52 to 1.98 m tall; the camera 1.6 to 2.5 m high."""
    for scene in scenes[:1000]:
        layout = street_layout(scene["image"], scene["width"], scene["height"])
        for obj in scene["objects"]:
            attributes = set(obj["attributes"])
            if UPRIGHT & attributes and "adult" in attributes and "wearing a hat" not in attributes:
                ratio = obj["bbox"][3] / (bottom(obj) - layout.horizon)
                expected = (1.52 / layout.camera_height, 1.98 / layout.camera_height)
                assert expected[0] * 0.98 <= ratio <= expected[1] * 1.02


def test_parked_vehicles_are_at_the_curb_and_moving_ones_in_the_lanes(scenes):
    for scene in scenes[:1500]:
        layout = street_layout(scene["image"], scene["width"], scene["height"])
        edges = layout.lane_edges
        for obj in known_objects([scene], "vehicle"):
            depth = layout.depth_at(bottom(obj))
            if "moving" in obj["attributes"]:
                assert edges[1] - 0.2 <= depth <= edges[-2] + 0.2
            else:
                at_near_curb = layout.near_curb - 1.0 <= depth <= edges[1] + 0.1
                at_far_curb = edges[-2] - 0.1 <= depth <= layout.far_curb + 1.0
                assert at_near_curb or at_far_curb


def test_big_vehicles_are_larger_than_two_wheelers(scenes):
    pairs = 0
    for scene in scenes:
        kinds = {o["id"]: set(o["attributes"]) for o in scene["objects"] if o["attributes_known"]}
        larger = set(relations(scene, "larger than"))
        for a, b in combinations(kinds, 2):
            for big, small in ((a, b), (b, a)):
                if kinds[big] & {"bus", "truck"} and kinds[small] & {"bicycle", "motorcycle"}:
                    assert (big, small) in larger and (small, big) not in larger
                    pairs += 1
    assert pairs >= 100


def test_buses_are_bigger_than_bicycles_in_pixels_at_similar_depth(scenes):
    for scene in scenes:
        vehicles = known_objects([scene], "vehicle")
        for bus in (v for v in vehicles if "bus" in v["attributes"]):
            for bike in (v for v in vehicles if "bicycle" in v["attributes"]):
                if abs(bottom(bus) - bottom(bike)) < 5:
                    assert bus["bbox"][3] > 2 * bike["bbox"][3]


def test_tone_depends_on_kind(scenes):
    vehicles = known_objects(scenes, "vehicle")
    light = {
        kind: share([v for v in vehicles if kind in v["attributes"]], "light-colored")
        for kind in ("bus", "car", "motorcycle")
    }
    assert (
        light["bus"] > 0.7 and light["motorcycle"] < 0.4 and light["bus"] > light["car"] > light["motorcycle"]
    )


def test_visible_tires_follow_kind_clipping_and_occlusion(scenes):
    """The attribute is exactly the wheel geometry the renderer draws; unhidden vehicles show all wheels."""
    whole = Counter()
    for scene in scenes[:1500]:
        layout = street_layout(scene["image"], scene["width"], scene["height"])
        occluders = wheel_occluders(scene)
        occluded = {b for _, b in relations(scene, "occluding")}
        for obj in known_objects([scene], "vehicle"):
            kind, tires = obj["attributes"][0], obj["attributes"][3]
            wheels = visible_wheels(layout, kind, obj["bbox"], occluders.get(obj["id"], []))
            assert tires == ("none", "one", "two", "more than two")[min(len(wheels), 3)]
            x, _, w, _ = obj["bbox"]
            if obj["id"] not in occluded and x > 0 and x + w < scene["width"]:
                whole[(kind, tires)] += 1
            if kind in ("car", "bicycle", "motorcycle"):
                assert tires != "more than two"
    assert set(whole) == {
        ("car", "two"),
        ("bicycle", "two"),
        ("motorcycle", "two"),
        ("bus", "more than two"),
        ("truck", "more than two"),
    }


def test_hats_are_more_frequent_for_adults_and_bags_for_walking_adults(scenes):
    people = known_objects(scenes, "person")
    adults = [o for o in people if "adult" in o["attributes"]]
    children = [o for o in people if "child" in o["attributes"]]
    assert share(adults, "wearing a hat") > share(children, "wearing a hat") + 0.08
    walking = [o for o in adults if "walking" in o["attributes"]]
    others = [o for o in people if "walking" not in o["attributes"] or "child" in o["attributes"]]
    assert share(walking, "carrying something") > share(others, "carrying something") + 0.1


def test_taller_than_is_antisymmetric_with_a_margin(scenes):
    equal_height_pairs = 0
    for scene in scenes[:1000]:
        people = [o["id"] for o in scene["objects"] if o["type"] == "person"]
        taller = set(relations(scene, "taller than"))
        for a, b in combinations(people, 2):
            assert not ((a, b) in taller and (b, a) in taller)
            equal_height_pairs += (a, b) not in taller and (b, a) not in taller
    assert equal_height_pairs > 0  # near-equal statures are "no" both ways


def test_depth_margin_grows_with_depth():
    assert 0 < depth_margin(3.0) < depth_margin(20.0)
