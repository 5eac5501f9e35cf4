"""The vectorised estimator equals the brute-force one of docs/method.md section 7, to the last digit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.oracle import PreparedScene
from engine.core.proposer import EngineSettings, Stream
from engine.core.questions import (
    Answer,
    InstantiationQuestion,
    Kind,
    RelationshipQuestion,
    make_instantiation,
    make_relationship,
)
from engine.core.statistics import fit
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
    """A random training set, history and stream. The full-history threshold is drawn too, so both
    branches of the back-off (full history, pooled history) are taken on these small training sets."""
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
    full_min = int(rng.choice([1, 3, 8, 40]))
    stream = Stream.resume(stats, EngineSettings(full_history_min_population=full_min), (seed,), history)
    return rng, vocabulary, training, history, story, stream


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
        full_min = stream.settings.full_history_min_population
        expected = brute_force(vocabulary, training, history, question, full_min)
        assert (estimate.yes, estimate.population) == expected, question


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), vocabulary_name=st.sampled_from(sorted(VOCABULARIES)))
def test_batched_instantiation_estimates_equal_brute_force(seed, vocabulary_name):
    """Many regions and attribute sets at once: the path the proposer takes."""
    rng, vocabulary, training, history, story, stream = build(seed, vocabulary_name, 0.0)
    batch = []
    while len(batch) < 25:
        question = random_question(rng, vocabulary, story)
        if isinstance(question, InstantiationQuestion):
            batch.append(question)
    estimates = stream._instantiation_estimates(batch)
    full_min = stream.settings.full_history_min_population
    for question, estimate in zip(batch, estimates, strict=True):
        expected = brute_force(vocabulary, training, history, question, full_min)
        assert (estimate.yes, estimate.population) == expected, question
        if estimate.population:
            assert estimate.p == estimate.yes / estimate.population


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), vocabulary_name=st.sampled_from(sorted(VOCABULARIES)))
def test_relationship_estimates_use_facts_in_both_directions(seed, vocabulary_name):
    """Histories dense in relationship facts about one pair, asked in both directions."""
    rng = np.random.default_rng(seed)
    vocabulary = VOCABULARIES[vocabulary_name]
    scenes = [random_scene(rng, vocabulary, f"s{i}", max_objects=5) for i in range(int(rng.integers(2, 30)))]
    stats = fit(vocabulary, scenes)
    training = [PreparedScene.build(s, vocabulary) for s in scenes]
    stream = Stream(stats, EngineSettings(), (seed,))
    whole = vocabulary.regions[0].id
    labels = []
    for type_name in rng.permutation([t.name for t in vocabulary.types] * 2)[:2]:
        question = make_instantiation(Kind.UNIQUE, str(type_name), [], whole, vocabulary)
        labels.append(stream.record(question, Answer.YES))
    history = [(q, a) for q, a in stream.story.entries]
    pair_questions = [
        make_relationship(s, r.name, o, vocabulary)
        for r in vocabulary.relationships
        for s, o in ((labels[0], labels[1]), (labels[1], labels[0]))
        if r.allows(s.type, o.type)
    ]
    for _ in range(int(rng.integers(1, 6))):
        if not pair_questions:
            break
        asked = pair_questions[int(rng.integers(len(pair_questions)))]
        given = Answer.YES if rng.random() < 0.5 else Answer.NO
        stream.record(asked, given)
        history.append((asked, given))
    for question in pair_questions:
        estimate = stream.estimate(question)
        assert (estimate.yes, estimate.population) == brute_force(vocabulary, training, history, question), (
            question
        )


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), vocabulary_name=st.sampled_from(sorted(VOCABULARIES)))
def test_the_back_off_threshold_is_exact(seed, vocabulary_name):
    """At a threshold equal to the full population the full history is used; one above, the pooled one.

    The threshold is set from the brute force's own count of the full population (its answer with a
    threshold of 0), so the boundary is hit on every instantiation and attribute question, not only when
    a random threshold happens to land on it."""
    rng, vocabulary, training, history, story, _ = build(seed, vocabulary_name, 0.0)
    stats = fit(vocabulary, [p.scene for p in training])
    checked = 0
    for _ in range(10):
        question = random_question(rng, vocabulary, story)
        if isinstance(question, RelationshipQuestion):
            continue
        full = brute_force(vocabulary, training, history, question, full_min=0)
        pooled = brute_force(vocabulary, training, history, question, full_min=10**9)
        cases = [(full[1] + 1, pooled, False)]
        if full[1] >= 1:
            cases.append((full[1], full, True))
        for full_min, expected, used_full in cases:
            stream = Stream.resume(
                stats, EngineSettings(full_history_min_population=full_min), (seed,), history
            )
            estimates = [stream.estimate(question)]
            if isinstance(question, InstantiationQuestion):
                estimates.append(stream._instantiation_estimates([question])[0])
            for estimate in estimates:
                assert (estimate.yes, estimate.population) == expected, (question, full_min)
                assert estimate.full_history is used_full
            checked += 1
    assert checked
