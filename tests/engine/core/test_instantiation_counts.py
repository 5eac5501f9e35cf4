"""The history classes and the batched instantiation counts (engine.core.instantiation_counts, decision
0100) give exactly what a plain pass over every image of B gives, on random training sets and histories."""

from __future__ import annotations

import copy

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.oracle import answer
from engine.core.pairs import pair_masks
from engine.core.proposer import Stream
from engine.core.training import TrainingState
from engine.core.truths import truths
from kernel.kinds import instantiation_kinds
from kernel.prepared import Binding
from tests.engine.core.test_estimator_matches_brute_force import VOCABULARIES, build, small_world


def plain_counts(state: TrainingState, type_index: int, region: int, mask: int) -> dict[str, tuple]:
    """Per kind, (yes, population) by d over every image of B, for the question about the type with the
    attributes `mask` in the region: each image's matches counted from its free objects."""
    free = state._free_objects(type_index)
    visible = (free.vis & state.region_bits[region]) != 0
    wanted = np.uint64(mask)
    # Without attributes every free object of the type counts, its attributes known or not.
    matching = visible & (free.known & ((free.attrs & wanted) == wanted) if mask else True)
    matches = np.bincount(free.positions[matching], minlength=len(state.images))
    unknown = state.free_unknown[type_index, region].astype(np.int64) if mask else np.zeros_like(matches)
    pooled = (state.population_bits[type_index] & state.region_bits[region]) != 0
    depth = state.answered + 1
    counts = {}
    for kind in instantiation_kinds():
        yes, decided = truths(kind, matches, unknown)
        counts[kind.name] = (
            np.bincount(state.disagreements[yes & pooled], minlength=depth),
            np.bincount(state.disagreements[decided & pooled], minlength=depth),
        )
    return counts


def assert_counts_are_plain(stream: Stream) -> None:
    state, vocabulary = stream.training, stream.vocabulary
    regions = list(range(len(vocabulary.regions)))
    for t, object_type in enumerate(vocabulary.types):
        without = state.counts_without_attributes(t, regions)
        sets = [a for size in (1, 2) for a in stream._conjunctive_sets(object_type, size)]
        masks = [object_type.mask_of(a) for a in sets]
        with_attributes = state.counts_with_attributes(t, regions, masks) if masks else {}
        for r in regions:
            expected = plain_counts(state, t, r, 0)
            for name, (yes, population) in expected.items():
                assert (without[name].yes[r] == yes).all() and (
                    without[name].population[r] == population
                ).all()
            for s, mask in enumerate(masks):
                expected = plain_counts(state, t, r, mask)
                for name, (yes, population) in expected.items():
                    counts = with_attributes[name][r]
                    assert (counts.yes[s] == yes).all() and (counts.population[s] == population).all()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), vocabulary_name=st.sampled_from(sorted(VOCABULARIES)))
def test_the_history_classes_say_what_the_images_say(seed, vocabulary_name):
    *_, stream = build(seed, vocabulary_name, 0.0)
    state = stream.training
    classes = state.classes
    assert (classes.disagreements[classes.of_image] == state.disagreements).all()
    assert (state.population_bits == classes.bits[classes.of_image].T).all()
    assert (classes.sizes() > 0).all()  # no empty class is carried along
    assert len(
        {(d, *bits) for d, bits in zip(classes.disagreements, classes.bits.tolist(), strict=True)}
    ) == len(classes.disagreements)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), vocabulary_name=st.sampled_from(sorted(VOCABULARIES)))
def test_the_batched_counts_equal_a_pass_over_every_image(seed, vocabulary_name):
    *_, history, _, stream = build(seed, vocabulary_name, 0.0)
    assert_counts_are_plain(stream)
    # A second stream on the same statistics reads the lists of occupied images the first one may have
    # left in the statistics' memo (before its first label): its counts are plain too.
    assert_counts_are_plain(Stream.resume(stream.stats, stream.settings, (1,), history[: len(history) // 2]))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), vocabulary_name=st.sampled_from(sorted(VOCABULARIES)))
def test_the_pairs_index_finds_what_the_binary_search_finds(seed, vocabulary_name):
    """`FittedStatistics.rel_subject_start` against the binary search it replaces, on random pairs of
    objects (related or not, of one image or not)."""
    rng, *_, stream = build(seed, vocabulary_name, 0.0)
    stats = stream.stats
    if stats.n_objects == 0:
        return
    subjects = rng.integers(0, stats.n_objects, 200)
    objects = rng.integers(0, stats.n_objects, 200)
    related = rng.integers(0, max(len(stats.rel_subject), 1), 50) if len(stats.rel_subject) else []
    subjects = np.r_[subjects, stats.rel_subject[related]].astype(np.int64)
    objects = np.r_[objects, stats.rel_object[related]].astype(np.int64)
    n = len(stats.vocabulary.relationships)
    plain = pair_masks(stats.rel_subject, stats.rel_object, stats.rel_bits, n, subjects, objects)
    assert (stats.pair_masks(subjects, objects) == plain).all()
    assert (plain != 0).any() or not len(stats.rel_subject)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), vocabulary_name=st.sampled_from(sorted(VOCABULARIES)))
def test_what_is_kept_between_proposals_changes_nothing(seed, vocabulary_name):
    """At every step of an oracle-driven stream, what it would draw among (with the scores it kept
    while the training state stayed the same, and the structures its statistics share) equals what a
    stream rebuilt from the history on statistics that keep nothing draws among (decision 0101)."""
    rng, _, training, stream = small_world(seed, vocabulary_name)
    driver = training[int(rng.integers(len(training)))]
    binding, history = Binding(), []
    for _ in range(25):
        fresh = copy.copy(stream.stats)
        fresh.__dict__.pop("memo", None)  # a memo of its own, empty
        rebuilt = Stream.resume(fresh, stream.settings, stream.seed, history)
        assert stream.candidates() == rebuilt.candidates()
        proposal = stream.propose()
        if proposal is None:
            break
        given, singled_out = answer(driver, binding, proposal.question)
        label = stream.record(proposal.question, given)
        history.append((proposal.question, given))
        if label is not None:
            binding.bind(label, singled_out)
