"""A simulated crowd for `benchmarks.crowd_quality`: annotators of stated quality draw the demo's
synthetic street scenes, whose scene graphs are the truth.

An annotator misses each object with probability `miss`, moves each edge of a box it finds by a normal
error of `jitter` times the box's size, answers each attribute group wrongly with probability `flip`
(another value of an exclusive group; a flag turned round), drops each true relationship between two
objects it found with probability `flip` and adds a false one to a pair with probability `flip` / 10.
An object whose attributes the truth marks unknown is marked unknown. A spammer draws boxes anywhere,
ticks every group at random and relates pairs at random.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from crowd.consensus import Box, MergedBox, Relation, Version
from kernel.scene import Scene
from kernel.vocabulary import Vocabulary


@dataclass(frozen=True)
class Annotator:
    name: str
    miss: float
    jitter: float
    flip: float
    spammer: bool = False


CROWD = (
    Annotator("careful-1", miss=0.17, jitter=0.11, flip=0.06),
    Annotator("careful-2", miss=0.18, jitter=0.11, flip=0.07),
    Annotator("careful-3", miss=0.19, jitter=0.12, flip=0.08),
    Annotator("careful-4", miss=0.20, jitter=0.12, flip=0.09),
    Annotator("spammer", miss=0.17, jitter=0.11, flip=0.5, spammer=True),
)


def truth_version(scene: Scene) -> Version:
    boxes = tuple(
        Box(o.id, o.type, *o.bbox, attributes=o.attributes, attributes_known=o.attributes_known)
        for o in scene.objects
    )
    relations = tuple(
        Relation(scene.objects[s].id, p, scene.objects[o].id) for s, p, o in sorted(scene.relationships)
    )
    return Version("truth", boxes, relations)


def annotate(annotator: Annotator, scene: Scene, vocabulary: Vocabulary, rng: np.random.Generator) -> Version:
    if annotator.spammer:
        return _spam(annotator, scene, vocabulary, rng)
    kept = [i for i in range(len(scene.objects)) if rng.random() >= annotator.miss]
    boxes = tuple(_drawn(annotator, scene, i, vocabulary, rng) for i in kept)
    relations = [
        Relation(f"{annotator.name}-{s}", p, f"{annotator.name}-{o}")
        for s, p, o in sorted(scene.relationships)
        if s in kept and o in kept and rng.random() >= annotator.flip
    ]
    for s in kept:
        for o in kept:
            if s != o and rng.random() < annotator.flip / 10:
                allowed = _predicates(vocabulary, scene.objects[s].type, scene.objects[o].type)
                if allowed:
                    relations.append(
                        Relation(f"{annotator.name}-{s}", str(rng.choice(allowed)), f"{annotator.name}-{o}")
                    )
    return Version(annotator.name, boxes, tuple(dict.fromkeys(relations)))


def _drawn(
    annotator: Annotator, scene: Scene, i: int, vocabulary: Vocabulary, rng: np.random.Generator
) -> Box:
    o = scene.objects[i]
    x, y, w, h = o.bbox
    left, right = x + rng.normal(0, annotator.jitter * w), x + w + rng.normal(0, annotator.jitter * w)
    top, bottom = y + rng.normal(0, annotator.jitter * h), y + h + rng.normal(0, annotator.jitter * h)
    attributes = (
        _flipped(o.attributes, o.type, annotator.flip, vocabulary, rng) if o.attributes_known else frozenset()
    )
    return Box(
        f"{annotator.name}-{i}",
        o.type,
        *_clipped(left, top, right, bottom, scene),
        attributes,
        o.attributes_known,
    )


def _clipped(
    left: float, top: float, right: float, bottom: float, scene: Scene
) -> tuple[float, float, float, float]:
    left, right = sorted((min(max(left, 0.0), scene.width - 1.0), min(max(right, 1.0), float(scene.width))))
    top, bottom = sorted((min(max(top, 0.0), scene.height - 1.0), min(max(bottom, 1.0), float(scene.height))))
    return left, top, max(right - left, 1.0), max(bottom - top, 1.0)


def _flipped(
    attributes: frozenset[str], label: str, flip: float, vocabulary: Vocabulary, rng: np.random.Generator
) -> frozenset[str]:
    said: set[str] = set()
    for group in vocabulary.object_type(label).groups:
        values = set(group.values) & attributes
        if rng.random() >= flip:
            said |= values
        elif group.exclusive:
            said.add(str(rng.choice([v for v in group.values if v not in values])))
        else:
            said |= set(group.values) - values
    return frozenset(said)


def _spam(annotator: Annotator, scene: Scene, vocabulary: Vocabulary, rng: np.random.Generator) -> Version:
    kept = [i for i in range(len(scene.objects)) if rng.random() >= annotator.miss]
    boxes = [_drawn(annotator, scene, i, vocabulary, rng) for i in kept]
    boxes = [Box(b.key, b.label, b.x, b.y, b.w, b.h, _random(b.label, vocabulary, rng)) for b in boxes]
    relations = [
        Relation(s.key, str(rng.choice(allowed)), o.key)
        for s in boxes
        for o in boxes
        if s is not o and (allowed := _predicates(vocabulary, s.label, o.label)) and rng.random() < 0.1
    ]
    return Version(annotator.name, tuple(boxes), tuple(dict.fromkeys(relations)))


def _random(label: str, vocabulary: Vocabulary, rng: np.random.Generator) -> frozenset[str]:
    said: set[str] = set()
    for group in vocabulary.object_type(label).groups:
        if group.exclusive:
            said.add(str(rng.choice(group.values)))
        elif rng.random() < 0.5:
            said |= set(group.values)
    return frozenset(said)


def _predicates(vocabulary: Vocabulary, subject: str, object_: str) -> list[str]:
    return [r.name for r in vocabulary.relationships if r.allows(subject, object_)]


def scene_document(
    scene: Scene, boxes: Sequence[Box | MergedBox], relations: Sequence[Relation], symmetric: frozenset[str]
) -> dict:
    """An annotation (a merge or one version) as a scene document of the interchange format."""
    pairs = {}
    for r in relations:
        s, o = sorted((r.subject, r.object)) if r.predicate in symmetric else (r.subject, r.object)
        pairs[(s, r.predicate, o)] = {"subject": s, "predicate": r.predicate, "object": o}
    return {
        "image": scene.image,
        "width": scene.width,
        "height": scene.height,
        "objects": [
            {
                "id": b.key,
                "type": b.label,
                "bbox": [b.x, b.y, b.w, b.h],
                "attributes": sorted(b.attributes) if b.attributes_known else [],
                "attributes_known": b.attributes_known,
            }
            for b in boxes
        ],
        "relationships": list(pairs.values()),
    }
