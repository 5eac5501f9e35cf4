"""The vectorised estimator equals the brute-force one of docs/method.md section 7, to the last digit."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.proposer import Stream
from engine.core.settings import EngineSettings
from engine.core.statistics import fit
from kernel.kinds import Kind
from kernel.prepared import PreparedScene
from kernel.questions import Answer, make_instantiation, make_relationship
from tests.engine.core.brute_force import (
    brute_force,
)
from tests.engine.core.random_scenes import (
    default_vocabulary,
    random_history,
    random_question,
    random_scene,
    small_vocabulary,
)

VOCABULARIES = {"small": small_vocabulary(), "default": default_vocabulary()}


def build(seed: int, vocabulary_name: str, min_overlap: float):
    """A random training set, history and stream. The prior strengths and the consistency weight are
    drawn too: from a strength that lets every level move p to one that keeps it near the pooled
    level's, from a weight that nearly drops disagreeing images to one that keeps them all."""
    rng = np.random.default_rng(seed)
    vocabulary = VOCABULARIES[vocabulary_name]
    scenes = [random_scene(rng, vocabulary, f"s{i}") for i in range(int(rng.integers(1, 40)))]
    stats = fit(vocabulary, scenes, min_overlap)
    training = [PreparedScene.build(s, vocabulary, min_overlap) for s in scenes]
    # Half the time the history comes from a training scene, so populations stay non-empty.
    driver = (
        training[int(rng.integers(len(training)))]
        if rng.random() < 0.5
        else PreparedScene.build(random_scene(rng, vocabulary, "driver"), vocabulary, min_overlap)
    )
    history, story = random_history(rng, vocabulary, driver, int(rng.integers(0, 14)))
    strength = float(rng.choice([0.5, 3.0, 40.0, 1000.0]))
    weighted_strength = float(rng.choice([0.25, 2.0, 40.0, 1000.0]))
    relationship_strength = float(rng.choice([0.75, 7.0, 20.0, 600.0]))
    weight = float(rng.choice([0.1, 0.5, 0.85, 1.0]))
    engine_settings = EngineSettings(
        prior_strength=strength,
        consistency_weight=weight,
        weighted_strength=weighted_strength,
        relationship_strength=relationship_strength,
    )
    stream = Stream.resume(stats, engine_settings, (seed,), history)
    return rng, vocabulary, training, history, story, stream


def expected_for(stream, vocabulary, training, history, question):
    settings = stream.settings
    return brute_force(
        vocabulary,
        training,
        history,
        question,
        settings.prior_strength,
        settings.consistency_weight,
        settings.weighted_strength,
        relationship_strength=settings.relationship_strength,
    )


def small_world(seed: int, vocabulary_name: str):
    """A random training set of small scenes and a fresh stream on it."""
    rng = np.random.default_rng(seed)
    vocabulary = VOCABULARIES[vocabulary_name]
    scenes = [random_scene(rng, vocabulary, f"s{i}", max_objects=5) for i in range(int(rng.integers(2, 30)))]
    stats = fit(vocabulary, scenes)
    training = [PreparedScene.build(s, vocabulary) for s in scenes]
    return rng, vocabulary, training, Stream(stats, EngineSettings(), (seed,))


def both_ways(vocabulary, labels):
    """Every relationship question about the first two labels, in both directions."""
    return [
        make_relationship(s, r.name, o, vocabulary)
        for r in vocabulary.relationships
        for s, o in ((labels[0], labels[1]), (labels[1], labels[0]))
        if r.allows(s.type, o.type)
    ]


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    vocabulary_name=st.sampled_from(sorted(VOCABULARIES)),
    min_overlap=st.sampled_from([0.0, 0.25]),
)
def test_single_estimates_equal_brute_force(seed, vocabulary_name, min_overlap):
    rng, vocabulary, training, history, story, stream = build(seed, vocabulary_name, min_overlap)
    for _ in range(12):
        question = random_question(rng, vocabulary, story)
        estimate = stream.estimate(question)
        expected = expected_for(stream, vocabulary, training, history, question)
        assert (estimate.p, estimate.population, list(estimate.levels)) == expected, question


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), vocabulary_name=st.sampled_from(sorted(VOCABULARIES)))
def test_the_proposers_instantiation_levels_equal_brute_force(seed, vocabulary_name):
    """Every region and attribute set of a level at once: the path the proposer takes. With epsilon
    0.5 and a minimum population of 1, every candidate with a population is a winner."""
    rng, vocabulary, training, history, story, built = build(seed, vocabulary_name, 0.0)
    wide = replace(built.settings, epsilon=0.5, min_population=1)
    stream = Stream.resume(built.stats, wide, (seed,), history)
    winners = [
        w for size in range(3) for w in stream._instantiation_level(range(len(vocabulary.regions)), size)
    ]
    for i in rng.permutation(len(winners))[:25]:
        question, estimate = winners[i].question, winners[i].estimate
        assert question not in story.rejected
        expected = expected_for(stream, vocabulary, training, history, question)
        assert (estimate.p, estimate.population, list(estimate.levels)) == expected, question
        assert estimate == stream.estimate(question)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), vocabulary_name=st.sampled_from(sorted(VOCABULARIES)))
def test_relationship_estimates_use_facts_in_both_directions(seed, vocabulary_name):
    """Histories dense in relationship facts about one pair, asked in both directions."""
    rng, vocabulary, training, stream = small_world(seed, vocabulary_name)
    whole = vocabulary.regions[0].id
    labels = []
    for type_name in rng.permutation([t.name for t in vocabulary.types] * 2)[:2]:
        question = make_instantiation(Kind.UNIQUE, str(type_name), [], whole, vocabulary)
        labels.append(stream.record(question, Answer.YES))
    history = [(q, a) for q, a in stream.story.entries]
    pair_questions = both_ways(vocabulary, labels)
    for _ in range(int(rng.integers(1, 6))):
        if not pair_questions:
            break
        asked = pair_questions[int(rng.integers(len(pair_questions)))]
        given = Answer.YES if rng.random() < 0.5 else Answer.NO
        stream.record(asked, given)
        history.append((asked, given))
    for question in pair_questions:
        estimate = stream.estimate(question)
        expected = expected_for(stream, vocabulary, training, history, question)
        assert (estimate.p, estimate.population, list(estimate.levels)) == expected, question


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), vocabulary_name=st.sampled_from(sorted(VOCABULARIES)))
def test_the_levels_are_nested(seed, vocabulary_name):
    """Each level's population is within the one above it (a finer level agrees with more of the
    history), except an instantiation question's full level, which is within its pooled one."""
    rng, vocabulary, _training, _history, story, stream = build(seed, vocabulary_name, 0.0)
    for _ in range(10):
        question = random_question(rng, vocabulary, story)
        levels = stream.estimate(question).levels
        assert all(n_fine <= n for (_, n), (_, n_fine) in itertools.pairwise(levels)), question
        assert all(0 <= yes <= n for yes, n in levels), question


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), vocabulary_name=st.sampled_from(sorted(VOCABULARIES)))
def test_the_found_levels_keep_the_images_that_give_the_defining_histories(seed, vocabulary_name):
    """Existence answers about each label's type in random regions before it is instantiated: the
    weighted found level of an attribute question keeps the images that give those about its type,
    that of a relationship question the images that give those about both types (decision 0057)."""
    rng, vocabulary, training, stream = small_world(seed, vocabulary_name)
    labels = []
    for type_name in rng.permutation([t.name for t in vocabulary.types])[:2]:
        for _ in range(int(rng.integers(1, 4))):
            region = vocabulary.regions[int(rng.integers(len(vocabulary.regions)))].id
            asked = make_instantiation(Kind.EXIST, str(type_name), [], region, vocabulary)
            stream.record(asked, Answer.YES if rng.random() < 0.5 else Answer.NO)
        region = vocabulary.regions[int(rng.integers(len(vocabulary.regions)))].id
        labels.append(
            stream.record(make_instantiation(Kind.UNIQUE, str(type_name), [], region, vocabulary), Answer.YES)
        )
    history = list(stream.story.entries)
    questions = both_ways(vocabulary, labels) + [
        random_question(rng, vocabulary, stream.story) for _ in range(6)
    ]
    for question in questions:
        estimate = stream.estimate(question)
        expected = expected_for(stream, vocabulary, training, history, question)
        assert (estimate.p, estimate.population, list(estimate.levels)) == expected, question
