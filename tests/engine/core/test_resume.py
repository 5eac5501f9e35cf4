"""A stream survives its process: rebuilt from its stored answers alone, it proposes exactly what the
uninterrupted stream proposed (issue 7, point 1). Truthing keeps streams in the database and advances
them in whichever worker picks up the task, so this is what makes a test reproducible."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from demo.synthetic.scenes import generate_scenes
from engine.core.oracle import answer
from engine.core.proposer import Stream
from engine.core.settings import EngineSettings
from engine.core.statistics import fit
from kernel.prepared import Binding, PreparedScene
from kernel.questions import Answer
from kernel.scene import parse_scene
from tests.engine.core.random_scenes import default_vocabulary, random_scene, random_vocabulary

STREET = default_vocabulary()


@pytest.fixture(scope="module")
def street():
    stats = fit(STREET, [parse_scene(s, STREET) for s in generate_scenes(400, seed=71)])
    scenes = [PreparedScene.build(parse_scene(s, STREET), STREET) for s in generate_scenes(6, seed=72)]
    return stats, scenes, EngineSettings(min_population=10, max_questions=30)


def drive(stats, scene, engine_settings, seed, rng, interruptions=frozenset()):
    """Propose and answer (by the oracle, a few answers rejected at random) until the stream ends.
    At every step in `interruptions` the stream is thrown away and resumed from the history alone."""
    stream = Stream(stats, engine_settings, seed)
    binding = Binding()
    history, proposals = [], []
    while len(history) < 3 * engine_settings.max_questions:
        if len(history) in interruptions:
            stream = Stream.resume(stats, engine_settings, seed, history)
        proposal = stream.propose()
        proposals.append(proposal)
        if proposal is None:
            break
        given, singled_out = answer(scene, binding, proposal.question)
        if rng.random() < 0.1:
            given = Answer.AMBIGUOUS
        label = stream.record(proposal.question, given)
        if label is not None:
            binding.bind(label, singled_out)
        history.append((proposal.question, given))
    return proposals


def assert_resumption_changes_nothing(stats, scene, engine_settings, seed, data):
    uninterrupted = drive(stats, scene, engine_settings, seed, np.random.default_rng(seed))
    steps = len(uninterrupted)
    interruptions = data.draw(st.frozensets(st.integers(0, max(steps - 1, 0)), max_size=5), label="steps")
    resumed = drive(stats, scene, engine_settings, seed, np.random.default_rng(seed), interruptions)
    assert resumed == uninterrupted


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31), image=st.integers(0, 5), data=st.data())
def test_a_resumed_street_stream_proposes_what_the_uninterrupted_one_did(street, seed, image, data):
    stats, scenes, engine_settings = street
    assert_resumption_changes_nothing(stats, scenes[image], engine_settings, (seed, image), data)


@settings(max_examples=25, deadline=None)
@given(vocabulary_seed=st.integers(0, 2**31), seed=st.integers(0, 2**31), data=st.data())
def test_a_resumed_stream_on_a_random_vocabulary_proposes_what_the_uninterrupted_one_did(
    vocabulary_seed, seed, data
):
    rng = np.random.default_rng(vocabulary_seed)
    vocabulary = random_vocabulary(rng)
    stats = fit(vocabulary, [random_scene(rng, vocabulary, f"s{i}") for i in range(120)])
    scene = PreparedScene.build(random_scene(rng, vocabulary, "test"), vocabulary)
    engine_settings = EngineSettings(min_population=5, max_questions=25)
    assert_resumption_changes_nothing(stats, scene, engine_settings, (seed,), data)


def test_a_seed_must_be_non_negative_integers(street):
    from kernel.errors import EngineError

    stats, _, engine_settings = street
    for bad in [(), (-1,), (1.5,), (True,)]:
        with pytest.raises(EngineError):
            Stream(stats, engine_settings, bad)
