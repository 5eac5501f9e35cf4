"""A generated download of Visual Genome's size, in Visual Genome's own published layout (no Django).

    .venv/bin/python -m benchmarks.vg_download OUT.zip [--images 108077] [--seed 1] [--mapping OUT.yaml]

Visual Genome 1.4 has 108,077 images, 3.8 million objects, 2.3 million relationships and 2.8 million
attribute values. This writes a zip of the same size and shape, as the import takes it (one archive of
`image_data.json`, `objects.json`, `attributes.json` and `relationships.json`, datasets.formats.
visual_genome), each file an array of one entry per image in the same order:

- `image_data.json`: `{"width", "url", "height", "image_id", "coco_id", "flickr_id"}`;
- `objects.json`: `{"image_id", "objects": [{"synsets", "h", "object_id", "merged_object_ids", "names",
  "w", "y", "x"}]}`, about 35 objects an image (from a handful to a few hundred);
- `attributes.json`: the same objects, those that have any with their `"attributes"` (0.75 an object);
- `relationships.json`: `{"image_id", "relationships": [{"predicate", "object": {...}, "relationship_id",
  "synsets", "subject": {...}}]}` with both objects whole (`"name"` instead of `"names"` in some, as in
  the real file), about 21 an image.

Names follow a long-tailed distribution as the real ones do: a few common words (man, woman, person,
car, tree, window, shirt, ...) that `MAPPING` maps to the default vocabulary (urban-street) or drops on
purpose, and tens of thousands of rarer phrases ("red brick wall") that no mapping names. A few percent of
the images carry the awkward cases of the real files: an object listed twice under one id (the second time
under another name), a relationship whose object is in no other file, names in odd case and spacing, a box
that runs off the image, and (unless `zero_width=False`) a box of zero width.

Each image is drawn once, from its own seeded generator (the same seed gives the same zip), in constant
memory: objects.json goes straight into the zip while attributes.json and relationships.json wait in
scratch files beside it (a zip is written one member at a time; about 1.4 GB at full size).
The JSON is written by hand from fragments encoded once (json.dumps per object would take minutes).
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import random
import shutil
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

# Visual Genome 1.4's totals.
IMAGES = 108_077
OBJECTS = 3_802_374
RELATIONSHIPS = 2_316_104
ATTRIBUTES = 2_833_035

FIRST_OBJECT_ID = 1_058_498  # where Visual Genome's object ids start
FIRST_RELATIONSHIP_ID = 15_927
SIZES = [(800, 600), (800, 533), (800, 450), (600, 800), (500, 333), (800, 800), (1024, 768)]

# (name, synset, weight): what the mapping below maps to a person or a vehicle.
PERSONS = [
    ("man", "man.n.01", 30),
    ("woman", "woman.n.01", 13),
    ("person", "person.n.01", 11),
    ("boy", "male_child.n.01", 3),
    ("girl", "girl.n.01", 3),
    ("guy", "guy.n.01", 2),
    ("lady", "lady.n.01", 2),
    ("player", "player.n.01", 4),
    ("child", "child.n.01", 2),
    ("skier", "skier.n.01", 2),
    ("pedestrian", "pedestrian.n.01", 1),
]
VEHICLES = [
    ("car", "car.n.01", 12),
    ("truck", "truck.n.01", 4),
    ("bus", "bus.n.01", 5),
    ("motorcycle", "motorcycle.n.01", 3),
    ("bike", "bicycle.n.01", 3),
    ("bicycle", "bicycle.n.01", 1),
    ("taxi", "cab.n.03", 1),
]
# What the mapping drops on purpose: the most common names of the real file.
DROPPED = [
    ("window", "window.n.01", 24),
    ("tree", "tree.n.01", 22),
    ("building", "building.n.01", 20),
    ("shirt", "shirt.n.01", 18),
    ("wall", "wall.n.01", 17),
    ("sign", "sign.n.02", 15),
    ("sky", "sky.n.01", 14),
    ("ground", "land.n.04", 12),
    ("grass", "grass.n.01", 12),
    ("table", "table.n.02", 11),
    ("pole", "pole.n.01", 11),
    ("head", "head.n.01", 11),
    ("hand", "hand.n.01", 10),
    ("light", "light.n.02", 10),
    ("water", "water.n.01", 10),
    ("hair", "hair.n.01", 10),
    ("leg", "leg.n.01", 9),
    ("plate", "plate.n.04", 8),
    ("cloud", "cloud.n.02", 8),
    ("fence", "fence.n.01", 7),
    ("street", "street.n.01", 7),
    ("road", "road.n.01", 6),
    ("sidewalk", "sidewalk.n.01", 5),
    ("people", "people.n.01", 5),  # several persons in one box: not a person
    ("wheel", "wheel.n.01", 5),
    ("jacket", "jacket.n.01", 5),
    ("hat", "hat.n.01", 4),
    ("ear", "ear.n.01", 4),
    ("eye", "eye.n.01", 4),
    ("leaf", "leaf.n.01", 4),
]
# Words the long tail of names is made of ("white shirt", "man's arm", "red brick wall").
ADJECTIVES = [
    "white",
    "black",
    "red",
    "blue",
    "green",
    "brown",
    "yellow",
    "gray",
    "orange",
    "pink",
    "silver",
    "wooden",
    "metal",
    "glass",
    "large",
    "small",
    "tall",
    "short",
    "long",
    "round",
    "square",
    "dark",
    "light",
    "open",
    "closed",
    "striped",
    "plastic",
    "concrete",
    "brick",
    "stone",
    "empty",
]
NOUNS = [
    "shirt",
    "wall",
    "sign",
    "pole",
    "head",
    "hand",
    "light",
    "water",
    "hair",
    "leg",
    "plate",
    "cloud",
    "fence",
    "road",
    "wheel",
    "jacket",
    "hat",
    "ear",
    "eye",
    "leaf",
    "arm",
    "nose",
    "mouth",
    "shoe",
    "door",
    "roof",
    "floor",
    "chair",
    "bag",
    "box",
    "bottle",
    "cup",
    "bowl",
    "pizza",
    "cake",
    "bench",
    "boat",
    "train",
    "plane",
    "horse",
    "dog",
    "cat",
    "bird",
    "cow",
    "sheep",
    "elephant",
    "giraffe",
    "zebra",
    "bear",
    "umbrella",
    "kite",
    "frisbee",
    "skateboard",
    "surfboard",
    "ski",
    "racket",
    "clock",
    "vase",
    "lamp",
    "pillow",
    "bed",
    "couch",
    "curtain",
    "shelf",
    "book",
    "phone",
    "laptop",
    "screen",
    "keyboard",
    "mirror",
    "sink",
    "toilet",
    "tile",
    "counter",
    "cabinet",
    "oven",
    "stove",
    "handle",
    "knob",
    "button",
    "logo",
    "letter",
    "number",
    "word",
    "stripe",
    "spot",
    "shadow",
    "reflection",
    "edge",
    "corner",
    "part",
    "side",
    "top",
    "bottom",
    "piece",
    "line",
    "mark",
    "design",
    "pattern",
]
OWNERS = ["man's", "woman's", "person's", "boy's", "girl's", "dog's", "cat's", "car's", "bus's"]

PERSON_ATTRIBUTES = [("standing", 8), ("walking", 4), ("sitting", 4), ("smiling", 3), ("running", 1)]
VEHICLE_ATTRIBUTES = [("parked", 6), ("white", 5), ("black", 4), ("silver", 2), ("moving", 1)]
OTHER_ATTRIBUTES = [(word, 3) for word in ADJECTIVES] + [("green", 8), ("tall", 4), ("cloudy", 2)]

# (predicate, weight) between any two objects, and between a person or a vehicle and another one.
PREDICATES = [
    ("on", 30),
    ("has", 20),
    ("wearing", 12),
    ("of", 10),
    ("in", 8),
    ("with", 5),
    ("near", 4),
    ("behind", 3),
    ("next to", 3),
    ("holding", 3),
    ("above", 2),
    ("under", 2),
    ("ON", 2),
    ("sitting on", 2),
    ("standing on", 2),
    ("in front of", 2),
    ("by", 1),
    ("parked on", 1),
]
BETWEEN_AGENTS = [
    ("riding", 6),
    ("in front of", 6),
    ("behind", 5),
    ("next to", 5),
    ("near", 4),
    ("driving", 2),
    ("talking to", 1),
    ("walking with", 1),
    ("sitting in", 2),
    ("on", 2),
]
AGENTS = 0.4  # the share of a person's or vehicle's relationships that go to another person or vehicle

# Per image: objects listed twice under one id, relationships with an object in no other file, odd
# case and spacing, boxes that run off the image, and boxes of zero width.
DUPLICATE_SHARE = 0.02
RELATIONSHIP_ONLY_SHARE = 0.02
ODD_NAME_SHARE = 0.02
OFF_IMAGE_SHARE = 0.03
ZERO_WIDTH_SHARE = 0.005

# What the benchmark's mapping file says: the names above to the default vocabulary (urban-street).
MAPPING = {
    "types": {
        "person": {
            "names": [name for name, _, _ in PERSONS],
            "synsets": ["person.n.01"],
            "implies": {
                "man": ["male", "adult"],
                "guy": ["male", "adult"],
                "woman": ["female", "adult"],
                "lady": ["female", "adult"],
                "boy": ["male", "child"],
                "girl": ["female", "child"],
                "child": ["child"],
            },
        },
        "vehicle": {
            "names": [name for name, _, _ in VEHICLES],
            "synsets": ["car.n.01", "cab.n.03"],
            "implies": {
                "car": ["car"],
                "taxi": ["car"],
                "truck": ["truck"],
                "bus": ["bus"],
                "motorcycle": ["motorcycle"],
                "bike": ["bicycle"],
                "bicycle": ["bicycle"],
            },
        },
    },
    "attributes": {
        "person": {
            "standing": "standing still",
            "walking": "walking",
            "running": "running",
            "sitting": "sitting",
        },
        "vehicle": {
            "white": "light-colored",
            "silver": "light-colored",
            "black": "dark-colored",
            "parked": "parked",
            "moving": "moving",
        },
    },
    "relationships": {
        "riding": "driving or riding",
        "driving": "driving or riding",
        "in front of": "closer than",
        "behind": {"relationship": "closer than", "reverse": True},
        "talking to": "talking",
        "walking with": "walking together",
    },
    "drop": {
        "names": [name for name, _, _ in DROPPED],
        "attributes": ["green", "tall", "smiling"],
        "predicates": ["on", "has", "wearing", "of", "in", "with", "near", "next to", "holding"],
    },
}


def mapping_text() -> str:
    """The mapping as the import takes it (JSON is YAML too)."""
    return json.dumps(MAPPING, indent=1) + "\n"


class Names:
    """Object names with their weights: the common ones above, then a long tail of phrases, each rarer
    than the one before (Zipf), as in the real file (75,000 distinct names, most seen a handful of times).
    Each name's JSON fragments are encoded once."""

    def __init__(self, generator: random.Random, tail: int = 40_000, tail_share: float = 0.45) -> None:
        common = [(n, s, w, "person") for n, s, w in PERSONS]
        common += [(n, s, w, "vehicle") for n, s, w in VEHICLES]
        common += [(n, s, w, "other") for n, s, w in DROPPED]
        phrases = self._phrases(generator, tail)
        head_weight = sum(w for _, _, w, _ in common)
        # The tail's weights fall as 1/rank (from rank 300 on: none is as common as the common names) and
        # add up to `tail_share` of all the names drawn.
        harmonic = sum(1 / (rank + 300) for rank in range(1, tail + 1))
        scale = head_weight * tail_share / (1 - tail_share) / harmonic
        entries = common + [
            (phrase, f"{phrase.split()[-1]}.n.01", scale / (rank + 300), "other")
            for rank, phrase in enumerate(phrases, start=1)
        ]
        self.names = [name for name, _, _, _ in entries]
        self.kinds = [kind for _, _, _, kind in entries]
        self.cumulative = list(itertools.accumulate(weight for _, _, weight, _ in entries))
        self.names_json = [json.dumps([name]) for name in self.names]
        self.name_json = [json.dumps(name) for name in self.names]
        self.synsets_json = [json.dumps([synset]) for _, synset, _, _ in entries]
        self.agents = [i for i, kind in enumerate(self.kinds) if kind != "other"]
        self.agent_cumulative = list(itertools.accumulate(entries[i][2] for i in self.agents))

    @staticmethod
    def _phrases(generator: random.Random, count: int) -> list[str]:
        found: dict[str, None] = {}
        while len(found) < count:
            form = generator.random()
            noun = generator.choice(NOUNS)
            if form < 0.5:
                phrase = f"{generator.choice(ADJECTIVES)} {noun}"
            elif form < 0.7:
                phrase = f"{generator.choice(OWNERS)} {noun}"
            elif form < 0.9:
                phrase = f"{generator.choice(ADJECTIVES)} {generator.choice(NOUNS)} {noun}"
            else:
                phrase = f"{noun} {generator.randrange(2, 40)}"  # the rare, odd ones: "shoe 12"
            found.setdefault(phrase)
        return list(found)

    def draw(self, generator: random.Random, agent: bool = False) -> int:
        if agent:
            return self.agents[
                bisect.bisect(self.agent_cumulative, generator.random() * self.agent_cumulative[-1])
            ]
        return bisect.bisect(self.cumulative, generator.random() * self.cumulative[-1])


def _weighted(pairs: list[tuple[str, int]]) -> tuple[list[str], list[int]]:
    return [json.dumps(name) for name, _ in pairs], list(itertools.accumulate(w for _, w in pairs))


def _pick(generator: random.Random, table: tuple[list[str], list[int]]) -> str:
    values, cumulative = table
    return values[bisect.bisect(cumulative, generator.random() * cumulative[-1])]


ATTRIBUTE_TABLES = {
    "person": _weighted(PERSON_ATTRIBUTES),
    "vehicle": _weighted(VEHICLE_ATTRIBUTES),
    "other": _weighted(OTHER_ATTRIBUTES),
}
PREDICATE_TABLE = _weighted(PREDICATES)
AGENT_PREDICATE_TABLE = _weighted(BETWEEN_AGENTS)
ATTRIBUTE_COUNTS = [0] * 48 + [1] * 33 + [2] * 13 + [3] * 5 + [4] * 1  # 0.78 an object, 0.75 once unique


@dataclass
class Thing:
    """One object: the JSON of its fields but the attributes, and the JSON of its attribute values."""

    object_id: int
    fields: str  # `"synsets": [...], "h": .., "object_id": .., "merged_object_ids": [], "names": [..], ...`
    single: str  # the same with "name": "..." instead of "names" (some relationships.json objects)
    attributes: list[str] = field(default_factory=list)


@dataclass
class Picture:
    image_id: int
    width: int
    height: int
    things: list[Thing]  # in objects.json's order, a duplicated id listed twice
    links: list[tuple[int, str, Thing, Thing]]  # (relationship_id, predicate JSON, subject, object)


class Download:
    """The images of the download, drawn the same way on every pass."""

    def __init__(self, images: int, seed: int, zero_width: bool = True) -> None:
        self.images, self.seed, self.zero_width = images, seed, zero_width
        self.names = Names(random.Random(seed))

    def image_ids(self) -> Iterator[tuple[int, str]]:
        """(image id, folder): the first images in VG_100K, the others in VG_100K_2 with ids of their
        own, as in the real file."""
        for number in range(self.images):
            if number < 64_346:
                yield number + 1, "VG_100K"
            else:
                yield 2_315_000 + number, "VG_100K_2"

    def size(self, number: int) -> tuple[int, int]:
        return SIZES[random.Random(self.seed * 1_000_003 + number).randrange(len(SIZES))]

    def pictures(self) -> Iterator[Picture]:
        object_id, relationship_id = FIRST_OBJECT_ID, FIRST_RELATIONSHIP_ID
        for number, (image_id, _) in enumerate(self.image_ids()):
            picture = self._picture(number, image_id, object_id, relationship_id)
            object_id += len(picture.things) + 2  # room for the objects found only in a relationship
            relationship_id += len(picture.links)
            yield picture

    def _picture(self, number: int, image_id: int, first_object: int, first_link: int) -> Picture:
        width, height = self.size(number)
        generator = random.Random(self.seed * 7_919 + number * 104_729 + 1)
        names, draw = self.names, generator.random
        # About 35 objects an image, from a few to a few hundred (a gamma distribution's long right tail).
        count = max(1, min(400, round(generator.gammavariate(2.2, 35.2 / 2.2))))
        things, kinds, odd = [], [], draw() < ODD_NAME_SHARE
        for n in range(count):
            index = names.draw(generator)
            things.append(self._thing(generator, first_object + n, index, width, height, odd))
            kinds.append(names.kinds[index])
        if draw() < OFF_IMAGE_SHARE:
            things[-1] = self._thing(
                generator, things[-1].object_id, names.draw(generator), width, height, odd, off=True
            )
        if self.zero_width and draw() < ZERO_WIDTH_SHARE:
            things[0] = self._thing(
                generator, things[0].object_id, names.draw(generator), width, height, odd, zero=True
            )
        # Relationships: about 0.61 an object; a person's or vehicle's often with another one.
        agents = [thing for thing, kind in zip(things, kinds, strict=True) if kind != "other"]
        links: list[tuple[int, str, Thing, Thing]] = []
        for _ in range(round(count * (0.32 + draw() * 0.64))):
            s = int(draw() * count)
            subject = things[s]
            if kinds[s] != "other" and len(agents) > 1 and draw() < AGENTS:
                other = agents[int(draw() * len(agents))]
                predicate = _pick(generator, AGENT_PREDICATE_TABLE)
            else:
                other = things[int(draw() * count)]
                predicate = _pick(generator, PREDICATE_TABLE)
            if other is not subject:
                links.append((first_link + len(links), predicate, subject, other))
        if links and draw() < RELATIONSHIP_ONLY_SHARE:
            # An object found only in relationships.json (as real ones are): a person riding it.
            alone = self._thing(
                generator, first_object + count, names.draw(generator, agent=True), width, height, odd
            )
            links.append((first_link + len(links), '"riding"', links[0][2], alone))
        if draw() < DUPLICATE_SHARE:
            # An object listed again under its id, under another name (Visual Genome's "man" and "person").
            again = things[int(draw() * count)]
            twin = self._thing(
                generator, again.object_id, names.draw(generator, agent=True), width, height, odd
            )
            things.append(twin)
        return Picture(image_id, width, height, things, links)

    def _thing(
        self,
        generator: random.Random,
        object_id: int,
        index: int,
        width: int,
        height: int,
        odd: bool,
        off: bool = False,
        zero: bool = False,
    ) -> Thing:
        names, draw = self.names, generator.random  # random() and arithmetic: randint() is 10 times slower
        w = 4 + int(draw() * (width // 2 - 3)) if draw() < 0.8 else 2 + int(draw() * 23)
        h = 4 + int(draw() * (height // 2 - 3)) if draw() < 0.8 else 2 + int(draw() * 23)
        x, y = int(draw() * (width - w)), int(draw() * (height - h))
        if off:
            x = width - w // 3  # two thirds of it past the right edge: clipped
        if zero:
            w = 0
        synsets = names.synsets_json[index] if draw() < 0.9 else "[]"
        name_json, names_json = names.name_json[index], names.names_json[index]
        if odd and draw() < 0.3:
            oddly = f" {names.names[index].upper()} "
            name_json, names_json = json.dumps(oddly), json.dumps([oddly])
        tail = f'"object_id": {object_id}, "merged_object_ids": [], '
        box = f'"w": {w}, "y": {y}, "x": {x}'
        fields = f'"synsets": {synsets}, "h": {h}, {tail}"names": {names_json}, {box}'
        single = f'"synsets": {synsets}, "h": {h}, {tail}"name": {name_json}, {box}'
        table = ATTRIBUTE_TABLES[names.kinds[index]]
        attributes = [_pick(generator, table) for _ in range(ATTRIBUTE_COUNTS[int(draw() * 100)])]
        return Thing(object_id, fields, single, list(dict.fromkeys(attributes)) if attributes else [])


# --- The files -----------------------------------------------------------------------------------------------


def _image_data(download: Download) -> Iterator[str]:
    for number, (image_id, folder) in enumerate(download.image_ids()):
        width, height = download.size(number)
        flickr = "null" if number % 3 else str(number * 7 + 1)
        yield (
            f'{{"width": {width}, "url": "https://images.example.org/{folder}/{image_id}.jpg", '
            f'"height": {height}, "image_id": {image_id}, "coco_id": null, "flickr_id": {flickr}}}'
        )


def _object_entry(picture: Picture) -> str:
    objects = ", ".join(f"{{{thing.fields}}}" for thing in picture.things)
    return f'{{"image_id": {picture.image_id}, "objects": [{objects}]}}'


def _attribute_entry(picture: Picture) -> str:
    objects = ", ".join(
        f'{{{thing.fields}, "attributes": [{", ".join(thing.attributes)}]}}'
        if thing.attributes
        else f"{{{thing.fields}}}"
        for thing in picture.things
    )
    return f'{{"image_id": {picture.image_id}, "attributes": [{objects}]}}'


def _relationship_entry(picture: Picture) -> str:
    links = ", ".join(
        f'{{"predicate": {predicate}, "object": {{{obj.fields}}}, "relationship_id": {number}, '
        f'"synsets": [], "subject": {{{subject.single if number % 2 else subject.fields}}}}}'
        for number, predicate, subject, obj in picture.links
    )
    return f'{{"image_id": {picture.image_id}, "relationships": [{links}]}}'


CONTENT = [
    ("objects.json", _object_entry),
    ("attributes.json", _attribute_entry),
    ("relationships.json", _relationship_entry),
]


class _Array:
    """A JSON array written an entry at a time, through a buffer of a few hundred entries."""

    def __init__(self, out: IO[bytes], every: int = 256) -> None:
        self.out, self.every, self.first = out, every, True
        self.batch: list[str] = []
        out.write(b"[")

    def add(self, entry: str) -> None:
        self.batch.append(entry)
        if len(self.batch) == self.every:
            self.flush()

    def flush(self) -> None:
        if self.batch:
            self.out.write(((",\n" if not self.first else "") + ",\n".join(self.batch)).encode())
            self.first, self.batch = False, []

    def close(self) -> None:
        self.flush()
        self.out.write(b"]\n")


@dataclass
class Written:
    path: Path
    images: int
    bytes_in: dict[str, int]  # uncompressed size of each file
    seconds: float
    objects: int = 0  # entries of objects.json (an object listed twice counts twice)
    attribute_values: int = 0  # in attributes.json
    relationships: int = 0


def write_download(path: Path, images: int = IMAGES, seed: int = 1, zero_width: bool = True) -> Written:
    """The zip at `path`, deflated at the fastest level (the import reads it as fast either way).

    The images are drawn once: objects.json goes straight into the zip while attributes.json and
    relationships.json wait in scratch files beside it (a zip is written one member at a time)."""
    started = time.perf_counter()
    download = Download(images, seed, zero_width)
    counted = [0, 0, 0]
    with (
        zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive,
        tempfile.TemporaryFile(dir=path.parent) as attributes,
        tempfile.TemporaryFile(dir=path.parent) as relationships,
    ):
        with archive.open("image_data.json", "w", force_zip64=True) as out:
            array = _Array(out)
            for entry in _image_data(download):
                array.add(entry)
            array.close()
        with archive.open("objects.json", "w", force_zip64=True) as out:
            arrays = [_Array(out), _Array(attributes), _Array(relationships)]
            for picture in download.pictures():
                for array, (_, write) in zip(arrays, CONTENT, strict=True):
                    array.add(write(picture))
                counted[0] += len(picture.things)
                counted[1] += sum(len(thing.attributes) for thing in picture.things)
                counted[2] += len(picture.links)
            for array in arrays:
                array.close()
        for (name, _), scratch in zip(CONTENT[1:], (attributes, relationships), strict=True):
            scratch.seek(0)
            with archive.open(name, "w", force_zip64=True) as out:
                shutil.copyfileobj(scratch, out, 4 * 1024 * 1024)
        sizes = {info.filename: info.file_size for info in archive.infolist()}
    return Written(path, images, sizes, time.perf_counter() - started, *counted)


def counts(path: Path) -> dict[str, int]:
    """What the zip holds, counted the slow way (json.load of each file): for checking the generator."""
    with zipfile.ZipFile(path) as archive:
        objects = json.loads(archive.read("objects.json"))
        attributes = json.loads(archive.read("attributes.json"))
        relationships = json.loads(archive.read("relationships.json"))
    return {
        "images": len(objects),
        "objects": sum(len(entry["objects"]) for entry in objects),
        "attribute values": sum(len(o.get("attributes", [])) for e in attributes for o in e["attributes"]),
        "relationships": sum(len(entry["relationships"]) for entry in relationships),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("path", type=Path, help="The zip to write.")
    parser.add_argument("--images", type=int, default=IMAGES)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-zero-width", action="store_true", help="Leave out the boxes of zero width.")
    parser.add_argument("--mapping", type=Path, help="Write the mapping file here too.")
    parser.add_argument("--count", action="store_true", help="Count what was written (slow, in memory).")
    args = parser.parse_args()
    written = write_download(args.path, args.images, args.seed, not args.no_zero_width)
    if args.mapping:
        args.mapping.write_text(mapping_text())
    print(
        f"{args.path}: {written.images:,} images, {args.path.stat().st_size / 1e6:,.0f} MB "
        f"({sum(written.bytes_in.values()) / 1e6:,.0f} MB of JSON) in {written.seconds:.0f} s: {written.objects:,} "
        f"objects, {written.attribute_values:,} attribute values, {written.relationships:,} relationships",
        file=sys.stderr,
    )
    if args.count:
        print(json.dumps(counts(args.path)))


if __name__ == "__main__":
    main()
