"""The parking-lot generator: valid scene graphs of its own vocabulary, reproducible, and a world model
(not coin flips) behind them."""

from __future__ import annotations

from collections import Counter

from demo.parking.scenes import VOCABULARY, generate_scenes
from kernel.scene import parse_scene
from kernel.vocabulary import load_vocabulary

LOT = load_vocabulary(VOCABULARY)


def test_scenes_parse_against_the_parking_vocabulary_and_are_reproducible():
    scenes = list(generate_scenes(200, seed=3))
    assert scenes == list(generate_scenes(200, seed=3))
    for scene in scenes:
        parsed = parse_scene(scene, LOT)
        for obj in parsed.objects:
            x, y, w, h = obj.bbox
            assert x >= 0 and y >= 0 and x + w <= scene["width"] + 0.1 and y + h <= scene["height"] + 0.1
    types = Counter(o["type"] for s in scenes for o in s["objects"])
    assert set(types) == {"car", "person", "cart"}


def test_relationships_follow_the_world_model():
    for scene in generate_scenes(200, seed=4):
        objects = {o["id"]: o for o in scene["objects"]}
        closer = {
            (r["subject"], r["object"]) for r in scene["relationships"] if r["predicate"] == "closer than"
        }
        assert not {(o, s) for s, o in closer} & closer  # an order: never both ways
        for r in scene["relationships"]:
            subject, obj = objects[r["subject"]], objects[r["object"]]
            if r["predicate"] == "pushing":
                assert "pushing a cart" in subject["attributes"] or not subject["attributes_known"]
            if r["predicate"] in ("loading", "getting into") and obj["attributes_known"]:
                assert "with a door open" in obj["attributes"]
            if r["predicate"] == "parked next to" and obj["attributes_known"]:
                assert "parked" in obj["attributes"]
            if r["predicate"] == "in front of":
                assert (r["subject"], r["object"]) in closer
