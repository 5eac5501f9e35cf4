"""The marina generator (the third held-out world of issue 19): valid scene graphs of its own
vocabulary, reproducible, and a world model (not coin flips) behind them."""

from __future__ import annotations

from collections import Counter

from demo.marina.scenes import VOCABULARY, generate_scenes
from kernel.scene import parse_scene
from kernel.vocabulary import load_vocabulary

MARINA = load_vocabulary(VOCABULARY)


def test_scenes_parse_against_the_marina_vocabulary_and_are_reproducible():
    scenes = list(generate_scenes(200, seed=3))
    assert scenes == list(generate_scenes(200, seed=3))
    for scene in scenes:
        parsed = parse_scene(scene, MARINA)
        for obj in parsed.objects:
            x, y, w, h = obj.bbox
            assert x >= 0 and y >= 0 and x + w <= scene["width"] + 0.1 and y + h <= scene["height"] + 0.1
    types = Counter(o["type"] for s in scenes for o in s["objects"])
    assert set(types) == {"boat", "person", "buoy"}


def test_relationships_follow_the_world_model():
    for scene in generate_scenes(200, seed=4):
        objects = {o["id"]: o for o in scene["objects"]}
        related = Counter((r["subject"], r["predicate"], r["object"]) for r in scene["relationships"])
        for (s, predicate, o), _ in related.items():
            if predicate in ("closer than", "left of", "larger than"):
                assert (o, predicate, s) not in related  # an order: never both ways
            subject, obj = objects[s], objects[o]
            if predicate == "aboard" and subject["attributes_known"]:
                assert "aboard" in subject["attributes"]
            if predicate == "tied to" and obj["attributes_known"]:
                assert "with a boat tied" in obj["attributes"]
            if predicate == "left of":
                assert subject["bbox"][0] + subject["bbox"][2] < obj["bbox"][0]
