"""Rendering of synthetic scenes, and the command line that writes scenes and images.

Runs without Django or a database:
    .venv/bin/python -m pytest -p no:django -p no:cacheprovider tests/demo/synthetic -q
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from demo.synthetic.__main__ import main
from demo.synthetic.render import BAG_COLOURS, HAT_COLOURS, HUB, painter_order, render_scene
from demo.synthetic.scenes import VEHICLE_SHAPES, generate_scenes, street_layout, visible_wheels

NAME = "unit-test-scene.png"
WIDTH, HEIGHT = 640, 480


@pytest.fixture(scope="module")
def sample() -> list[dict]:
    return list(generate_scenes(30, seed=3))


def person_scene(attributes: list[str], *, hat: bool = False, bag: bool = False) -> dict:
    """A scene with one person 1.7 m tall crossing the street (drawn from the front, bag on the left).

    The box grows upwards by the hat and leftwards by the bag exactly as the scene model sizes boxes,
    so the figure itself is identical with and without them.
    """
    layout = street_layout(NAME, WIDTH, HEIGHT)
    depth = 0.5 * (layout.near_curb + layout.far_curb)
    scale = layout.focal / depth
    stature = 1.7 * scale
    bottom = layout.ground_y(depth)
    x, y, w, h = 300.0, bottom - stature, 0.36 * stature, stature
    if hat:
        y, h = y - 0.05 * stature, h + 0.05 * stature
    if bag:
        x, w = x - 0.07 * stature, w + 0.07 * stature
    extra = (["wearing a hat"] if hat else []) + (["carrying something"] if bag else [])
    person = {
        "id": "o1",
        "type": "person",
        "bbox": [x, y, w, h],
        "attributes": attributes + extra,
        "attributes_known": True,
    }
    return {"image": NAME, "width": WIDTH, "height": HEIGHT, "objects": [person], "relationships": []}


def changed_pixels(a, b) -> np.ndarray:
    """(row, column) of every pixel that differs between two images."""
    return np.argwhere(np.any(np.asarray(a, dtype=int) != np.asarray(b, dtype=int), axis=2))


def colour_count(image, colours) -> int:
    pixels = np.asarray(image).reshape(-1, 3)
    return int(sum(np.all(pixels == colour, axis=1).sum() for colour in colours))


BASE = ["female", "adult", "crossing the street", "on street"]


def test_render_gives_an_rgb_image_of_the_scene_size(sample):
    image = render_scene(sample[0])
    assert image.size == (WIDTH, HEIGHT) and image.mode == "RGB"
    small = next(generate_scenes(1, seed=9, width=320, height=200))
    assert render_scene(small).size == (320, 200)


def test_render_is_deterministic_per_seed(sample):
    scene = max(sample, key=lambda s: len(s["objects"]))
    assert render_scene(scene, seed=1).tobytes() == render_scene(scene, seed=1).tobytes()
    assert render_scene(scene, seed=1).tobytes() != render_scene(scene, seed=2).tobytes()


def test_render_takes_under_fifty_milliseconds(sample):
    crowded = sorted(sample, key=lambda s: -len(s["objects"]))[:10]
    start = time.perf_counter()
    for scene in crowded:
        render_scene(scene)
    assert (time.perf_counter() - start) / len(crowded) < 0.05


def test_a_hat_is_drawn_on_the_head():
    plain, hatted = render_scene(person_scene(BASE)), render_scene(person_scene(BASE, hat=True))
    changed = changed_pixels(plain, hatted)
    _, y, _, h = person_scene(BASE, hat=True)["objects"][0]["bbox"]
    assert len(changed) > 30
    # All changes are at the top of the box (the hat sits on the head), none at the feet.
    assert changed[:, 0].min() >= int(y) and changed[:, 0].max() <= y + 0.15 * h
    assert colour_count(hatted, HAT_COLOURS) > 30 and colour_count(plain, HAT_COLOURS) == 0


def test_a_carried_bag_is_drawn_in_a_hand():
    plain, carrying = render_scene(person_scene(BASE)), render_scene(person_scene(BASE, bag=True))
    changed = changed_pixels(plain, carrying)
    x, y, w, h = person_scene(BASE, bag=True)["objects"][0]["bbox"]
    assert len(changed) > 30
    # The bag hangs at hand height (around the hips), on the left half of the box.
    assert changed[:, 0].min() >= y + 0.4 * h and changed[:, 0].max() <= y + 0.8 * h
    assert changed[:, 1].max() <= x + 0.5 * w
    assert colour_count(carrying, BAG_COLOURS) > 30 and colour_count(plain, BAG_COLOURS) == 0


def test_sex_changes_the_legs_and_age_the_figure():
    woman = render_scene(person_scene(BASE))
    man = render_scene(person_scene(["male", *BASE[1:]]))
    assert len(changed_pixels(woman, man)) > 50  # skirt and long hair versus trousers
    child = render_scene(person_scene(["female", "child", *BASE[2:]]))
    assert len(changed_pixels(woman, child)) > 50  # a larger head on a shorter body


@pytest.mark.parametrize(
    ("kind", "tires"), [("car", "two"), ("truck", "more than two"), ("bus", "more than two")]
)
def test_wheels_drawn_are_the_visible_tires(kind, tires):
    """A lone vehicle in full view shows a hub at each wheel position the tyre count is made of."""
    layout = street_layout(NAME, WIDTH, HEIGHT)
    depth = layout.far_curb - 1.5
    shape, scale = VEHICLE_SHAPES[kind], layout.focal / depth
    length, height = 0.9 * shape.length * scale, 0.9 * shape.height * scale
    box = [
        round(0.5 * (WIDTH - length), 1),
        round(layout.ground_y(depth) - height, 1),
        round(length, 1),
        round(height, 1),
    ]
    vehicle = {
        "id": "o1",
        "type": "vehicle",
        "bbox": box,
        "attributes": [kind, "dark-colored", "parked", tires],
        "attributes_known": True,
    }
    image = np.asarray(
        render_scene(
            {"image": NAME, "width": WIDTH, "height": HEIGHT, "objects": [vehicle], "relationships": []}
        )
    )
    wheels = visible_wheels(layout, kind, box, [])
    assert len(wheels) == (2 if tires == "two" else 3)
    for cx, cy, _ in wheels:
        assert tuple(image[round(cy), round(cx)]) == HUB


def test_painter_order_draws_occluders_after_what_they_hide(sample):
    for scene in sample:
        layout = street_layout(scene["image"], scene["width"], scene["height"])
        ridden = {
            r["subject"]: r["object"] for r in scene["relationships"] if r["predicate"] == "driving or riding"
        }
        position = {obj["id"]: k for k, obj in enumerate(painter_order(scene["objects"], layout, ridden))}
        for relation in scene["relationships"]:
            if relation["predicate"] == "occluding":
                assert position[relation["subject"]] > position[relation["object"]]
        for rider, vehicle in ridden.items():
            assert position[rider] > position[vehicle]


# --------------------------------------------------------------------------------------------------
# Command line.
# --------------------------------------------------------------------------------------------------


def test_command_line_writes_json_lines_and_images(tmp_path):
    out, images = tmp_path / "scenes.jsonl", tmp_path / "images"
    assert (
        main(
            [
                "--count",
                "3",
                "--seed",
                "5",
                "--out",
                str(out),
                "--images",
                str(images),
                "--width",
                "320",
                "--height",
                "240",
            ]
        )
        == 0
    )
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["image"] for r in records] == [f"synthetic-5-{i:06d}.png" for i in range(3)]
    expected = [json.dumps(s, sort_keys=True) for s in generate_scenes(3, 5, width=320, height=240)]
    assert out.read_text(encoding="utf-8").splitlines() == expected
    assert sorted(p.name for p in images.iterdir()) == [r["image"] for r in records]


@pytest.mark.parametrize(
    "arguments",
    [
        ["--count", "-1", "--seed", "1"],
        ["--count", "2", "--seed", "one"],
        ["--count", "2"],
        ["--count", "2", "--seed", "1", "--width", "10"],
    ],
)
def test_command_line_rejects_bad_arguments_with_one_line(tmp_path, capsys, arguments):
    with pytest.raises(SystemExit) as exit_info:
        main([*arguments, "--out", str(tmp_path / "x.jsonl")])
    assert exit_info.value.code != 0
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and "error" in message
