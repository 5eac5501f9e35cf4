"""Each annotator's reliability (Dawid and Skene) on a small simulated crowd whose truth is known."""

from __future__ import annotations

import numpy as np
import pytest

from crowd.consensus import (
    Box,
    ConsensusError,
    Reliability,
    Version,
    estimate_crowd,
    estimate_reliability,
    merge_image,
    vote,
    vote_score,
)
from tests.crowd.consensus.helpers import version

ATTRIBUTES = ("red", "tall", "hat", "bag")
UNIVERSE = {"person": frozenset(ATTRIBUTES)}


def truth(rng: np.random.Generator) -> list[tuple[float, frozenset[str]]]:
    """Three people a row apart, each with each attribute at 30%."""
    return [(100.0 * i, frozenset(a for a in ATTRIBUTES if rng.random() < 0.3)) for i in range(3)]


def annotate(name: str, people, flip: float, rng: np.random.Generator) -> Version:
    """Every person found; each attribute answered wrongly with probability `flip` (0.5: a spammer)."""
    boxes = []
    for i, (x, attributes) in enumerate(people):
        said = frozenset(a for a in ATTRIBUTES if (a in attributes) != (rng.random() < flip))
        boxes.append(Box(f"{name}{i}", "person", x + rng.normal(0, 1), 0, 40, 80, said))
    return Version(name, tuple(boxes))


def crowd(flips: dict[str, float], images: int, seed: int = 3):
    rng = np.random.default_rng(seed)
    world = {f"i{n}": truth(rng) for n in range(images)}
    versions = {
        image: [annotate(name, people, flip, rng) for name, flip in flips.items()]
        for image, people in world.items()
    }
    return world, versions


def test_a_spammer_goes_to_chance_and_careful_annotators_do_not():
    _, versions = crowd({"c1": 0.05, "c2": 0.05, "c3": 0.1, "spam": 0.5}, images=40)
    reliability = estimate_reliability(versions, attribute_universe=UNIVERSE)
    spam = reliability["spam"].kinds["attribute"]
    assert spam.sensitivity + spam.specificity - 1 == pytest.approx(0, abs=0.12)  # Youden's J: chance is 0
    assert not spam.informative or vote_score({"spam": True}, reliability, "attribute") < 0.3
    for name in ("c1", "c2", "c3"):
        mine = reliability[name].kinds["attribute"]
        assert mine.sensitivity + mine.specificity - 1 > 0.75
    assert all(r.enough for r in reliability.values())
    assert reliability["c1"].n_items == 40 * 3 * (1 + len(ATTRIBUTES))  # a box and four attributes each


def attribute_accuracy(world, versions, weights) -> float:
    right = total = 0
    for image, people in world.items():
        merged = sorted(
            merge_image(versions[image], weights=weights, attribute_universe=UNIVERSE).boxes,
            key=lambda b: b.x,
        )
        for (_, attributes), box in zip(people, merged, strict=True):
            right += sum((a in attributes) == (a in box.attributes) for a in ATTRIBUTES)
            total += len(ATTRIBUTES)
    return right / total


def test_the_weighted_vote_beats_the_majority_of_two_careless_annotators():
    world, versions = crowd({"careless1": 0.4, "careless2": 0.4, "careful": 0.03}, images=40)
    weights = estimate_reliability(versions, attribute_universe=UNIVERSE)
    majority, weighted = (
        attribute_accuracy(world, versions, None),
        attribute_accuracy(world, versions, weights),
    )
    assert majority < 0.85
    assert weighted > 0.93  # the careful one's answer, nearly always


def test_below_the_minimum_an_annotator_is_not_enough():
    _, versions = crowd({"a": 0.1, "b": 0.1}, images=2)
    reliability = estimate_reliability(versions, min_items=31, attribute_universe=UNIVERSE)
    assert {name: r.n_items for name, r in reliability.items()} == {"a": 30, "b": 30}  # 2 x 3 x (box + 4)
    assert not any(r.enough for r in reliability.values())
    assert estimate_reliability({"alone": [version("a")]}) == {}
    with pytest.raises(ConsensusError):
        estimate_reliability(versions, min_items=0)


def test_the_priors_are_the_base_rates_and_decide_a_split_between_equals():
    world, versions = crowd({"a": 0.1, "b": 0.1, "c": 0.1}, images=40)
    estimate = estimate_crowd(versions, attribute_universe=UNIVERSE)
    truly = [a in attributes for people in world.values() for _, attributes in people for a in ATTRIBUTES]
    rates = [p for (kind, _, _), p in estimate.priors.items() if kind == "attribute"]
    assert np.mean(rates) == pytest.approx(np.mean(truly), abs=0.05)
    equals = {"a": Reliability(0.9, 0.9, 500, True), "b": Reliability(0.9, 0.9, 500, True)}
    split = {"a": True, "b": False}
    assert vote(split, equals, prior=0.8) is True
    assert vote(split, equals, prior=0.2) is False
    assert vote(split, prior=0.8) is False  # a majority ignores the prior: a tie is no
