"""Small random training sets and random valid histories for property tests.

Scenes are random on purpose (no street model): boxes anywhere, attributes drawn per group, some
objects with unknown attributes, relationships drawn per allowed pair. That explores corners a
realistic generator rarely produces (empty images, crowded cells, unknown attributes everywhere).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.core.oracle import answer
from engine.core.story import Story
from kernel.kinds import Kind
from kernel.prepared import Binding, PreparedScene
from kernel.questions import Answer, Question, make_attribute, make_instantiation, make_relationship
from kernel.scene import Scene, parse_scene
from kernel.vocabulary import Vocabulary, load_vocabulary, parse_vocabulary

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_VOCABULARY = ROOT / "annotations" / "vocabularies" / "urban-street.json"


def default_vocabulary() -> Vocabulary:
    return load_vocabulary(DEFAULT_VOCABULARY)


def small_vocabulary() -> Vocabulary:
    """Few values and regions, so random histories hit the same facts and regions often."""
    return parse_vocabulary(
        {
            "name": "small",
            "types": {
                "person": {
                    "attribute_groups": [
                        {"name": "sex", "exclusive": True, "values": ["male", "female"]},
                        {"name": "motion", "exclusive": True, "values": ["standing", "walking", "running"]},
                        {"name": "hat", "exclusive": False, "values": ["wearing a hat"]},
                    ]
                },
                "vehicle": {
                    "attribute_groups": [
                        {"name": "kind", "exclusive": True, "values": ["car", "bus"]},
                        {"name": "parked", "exclusive": False, "values": ["parked"]},
                    ]
                },
            },
            "relationships": [
                {
                    "name": "talking",
                    "subject_types": ["person"],
                    "object_types": ["person"],
                    "symmetric": True,
                    "group": "social",
                },
                {
                    "name": "closer than",
                    "subject_types": ["person", "vehicle"],
                    "object_types": ["person", "vehicle"],
                    "symmetric": False,
                    "group": "depth",
                },
                {
                    "name": "occluding",
                    "subject_types": ["person", "vehicle"],
                    "object_types": ["person", "vehicle"],
                    "symmetric": False,
                    "group": "depth",
                },
                {
                    "name": "riding",
                    "subject_types": ["person"],
                    "object_types": ["vehicle"],
                    "symmetric": False,
                    "group": "use",
                },
            ],
            "regions": [
                {"id": "whole", "box": [0, 0, 1, 1]},
                {"id": "left", "box": [0, 0, 0.5, 1]},
                {"id": "right", "box": [0.5, 0, 1, 1]},
                {"id": "top-left", "box": [0, 0, 0.5, 0.5]},
                {"id": "centre", "box": [0.25, 0.25, 0.75, 0.75]},
            ],
        }
    )


def random_scene(
    rng: np.random.Generator,
    vocabulary: Vocabulary,
    name: str,
    max_objects: int = 7,
    unknown_rate: float = 0.15,
) -> Scene:
    width, height = int(rng.integers(100, 400)), int(rng.integers(100, 400))
    objects = []
    for i in range(int(rng.integers(0, max_objects + 1))):
        object_type = vocabulary.types[int(rng.integers(len(vocabulary.types)))]
        w, h = float(rng.uniform(5, width / 2)), float(rng.uniform(5, height / 2))
        x, y = float(rng.uniform(0, width - w)), float(rng.uniform(0, height - h))
        known = bool(rng.random() > unknown_rate)
        attributes = []
        if known:
            for group in object_type.groups:
                if group.exclusive:
                    if rng.random() < 0.9:
                        attributes.append(group.values[int(rng.integers(len(group.values)))])
                else:
                    attributes.extend(v for v in group.values if rng.random() < 0.5)
        objects.append(
            {
                "id": f"o{i}",
                "type": object_type.name,
                "bbox": [x, y, w, h],
                "attributes": attributes,
                "attributes_known": known,
            }
        )
    relationships = []
    for a in objects:
        for b in objects:
            if a is b:
                continue
            for relationship in vocabulary.relationships:
                if relationship.allows(a["type"], b["type"]) and rng.random() < 0.35:
                    relationships.append(
                        {"subject": a["id"], "predicate": relationship.name, "object": b["id"]}
                    )
    document = {
        "image": name,
        "width": width,
        "height": height,
        "objects": objects,
        "relationships": relationships,
    }
    return parse_scene(document, vocabulary)


def random_question(rng: np.random.Generator, vocabulary: Vocabulary, story: Story) -> Question:
    """Any valid question given the labels the story has instantiated."""
    labels = [record.label for record in story.labels]
    choice = rng.random()
    if labels and choice < 0.3:
        label = labels[int(rng.integers(len(labels)))]
        object_type = vocabulary.object_type(label.type)
        kind = [Kind.ATTR, Kind.ATTR_AND, Kind.ATTR_OR][int(rng.integers(3))]
        size = 1 if kind == Kind.ATTR else 2
        attributes = rng.choice(object_type.attributes, size=size, replace=False)
        return make_attribute(kind, label, [str(a) for a in attributes], vocabulary)
    if len(labels) >= 2 and choice < 0.5:
        for _ in range(20):
            i, j = rng.choice(len(labels), size=2, replace=False)
            relationship = vocabulary.relationships[int(rng.integers(len(vocabulary.relationships)))]
            if relationship.allows(labels[i].type, labels[j].type):
                return make_relationship(labels[i], relationship.name, labels[j], vocabulary)
    object_type = vocabulary.types[int(rng.integers(len(vocabulary.types)))]
    size = int(rng.integers(0, 3))
    attributes = [str(a) for a in rng.choice(object_type.attributes, size=size, replace=False)]
    region = vocabulary.regions[int(rng.integers(len(vocabulary.regions)))].id
    kind = Kind.UNIQUE if rng.random() < 0.5 else Kind.EXIST
    return make_instantiation(kind, object_type.name, attributes, region, vocabulary)


def random_history(
    rng: np.random.Generator, vocabulary: Vocabulary, scene: PreparedScene, length: int, noise: float = 0.1
) -> tuple[list[tuple[Question, Answer]], Story]:
    """A valid history: questions answered by the oracle on `scene`, some answers flipped or rejected.

    Flipped answers make histories that no scene satisfies exactly, which the estimators must handle too
    (the populations shrink, possibly to nothing). Uniqueness answers are never flipped to yes, because a
    label needs an object to refer to in the scene that drives the history.
    """
    story = Story(vocabulary)
    binding = Binding()
    history: list[tuple[Question, Answer]] = []
    for _ in range(length):
        question = random_question(rng, vocabulary, story)
        given, singled_out = answer(scene, binding, question)
        roll = rng.random()
        if roll < noise / 2:
            given = Answer.AMBIGUOUS
        elif roll < noise and given != Answer.AMBIGUOUS and question.kind != Kind.UNIQUE:
            given = Answer.NO if given == Answer.YES else Answer.YES
        label = story.record(question, given)
        if label is not None:
            assert singled_out is not None
            binding.bind(label, singled_out)
        history.append((question, given))
    return history, story


def random_vocabulary(rng: np.random.Generator) -> Vocabulary:
    """A vocabulary nobody designed: 1 to 3 types, random groups and values, random relationships and
    a random region set (always with the whole image), to keep the engine honest about vocabularies
    other than the street scenes'."""
    types: dict[str, dict] = {}
    for t in range(int(rng.integers(1, 4))):
        groups = []
        for g in range(int(rng.integers(1, 4))):
            exclusive = bool(rng.random() < 0.6)
            count = int(rng.integers(2, 5)) if exclusive else int(rng.integers(1, 3))
            groups.append(
                {"name": f"g{g}", "exclusive": exclusive, "values": [f"t{t}g{g}v{v}" for v in range(count)]}
            )
        types[f"thing{t}"] = {"attribute_groups": groups}
    names = sorted(types)
    relationships = []
    for r in range(int(rng.integers(0, 4))):
        subjects = sorted({str(s) for s in rng.choice(names, size=int(rng.integers(1, len(names) + 1)))})
        objects = sorted({str(o) for o in rng.choice(names, size=int(rng.integers(1, len(names) + 1)))})
        relationships.append(
            {
                "name": f"rel{r}",
                "subject_types": subjects,
                "object_types": objects,
                "symmetric": bool(rng.random() < 0.3) and subjects == objects,
                "group": f"rg{int(rng.integers(0, 2))}",
            }
        )
    regions = [{"id": "whole", "box": [0, 0, 1, 1]}]
    for k in range(int(rng.integers(1, 7))):
        x0, y0 = float(rng.uniform(0, 0.6)), float(rng.uniform(0, 0.6))
        x1, y1 = float(rng.uniform(x0 + 0.2, 1.0)), float(rng.uniform(y0 + 0.2, 1.0))
        regions.append({"id": f"r{k}", "box": [round(x0, 3), round(y0, 3), round(x1, 3), round(y1, 3)]})
    return parse_vocabulary(
        {"name": "random", "types": types, "relationships": relationships, "regions": regions}
    )
