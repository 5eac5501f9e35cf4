"""Choosing the next question (docs/method.md section 6, docs/engine.md "What one step does").

A `Stream` holds the history of one test image (as a `Story`) and its effect on the training set (as a
`TrainingState`). `propose()` walks the story line in groups of candidates:
1. attribute questions about the most recently instantiated object (single attributes, then and/or
   pairs);
2. relationship questions between it and the objects instantiated before it;
3. instantiation questions (existence and uniqueness) by number of attributes, inside the focus region
   and its subregions, then over the whole region set;
and the story never goes back to a phase it has left since the latest object was instantiated. A
candidate is unpredictable when |p - 0.5| <= epsilon with a population of at least `min_population`;
a uniqueness candidate also needs its consistency-weighted level to weigh at least `min_evidence`.
Sharp first: the first group holding a candidate with |p - 0.5| <= `sharp_epsilon` wins and one of its
sharp candidates is drawn; with none anywhere, the first group holding an unpredictable candidate wins
(the paper's rule); with none at all, the stream ends (also at `max_questions` answered questions).
Groups are estimated lazily, which spares the costly levels most of the time. The draw of step k uses a
generator made from (stream seed, k) alone, and the focus region is a function of the history alone, so
a stream rebuilt from its stored answers (`Stream.resume`) proposes exactly what the uninterrupted
stream would have: a stream can live in a database and be advanced by any worker.

A stream dealt to one session of many may be given an `Exposure`: how often each candidate's fact was
revealed to earlier sessions on the image. The draw then keeps the least exposed of the preferred
candidates (or, when every one of them was told, the untold ones of their group) before drawing, so
that a session is asked what earlier sessions were told least. It never changes p, the population or
which candidates are unpredictable, only which one is drawn; without it the draw is the plain one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import numpy.typing as npt

from engine.core.candidates import (
    Choice,
    Proposal,
    attribute_candidates,
    attribute_sets,
    relationship_candidates,
)
from engine.core.exposure import Exposure, least_exposed
from engine.core.instantiation_counts import Counts
from engine.core.pooled import attribute_levels, relationship_levels
from engine.core.settings import EngineSettings
from engine.core.statistics import FittedStatistics
from engine.core.story import Story
from engine.core.training import TrainingState
from kernel.errors import SettingError
from kernel.estimates import Estimate, chain, chain_arrays, powers, weighted_sum, weighted_sums
from kernel.kinds import InstantiationKind, instantiation_kinds
from kernel.questions import (
    Answer,
    AttributeQuestion,
    InstantiationQuestion,
    Label,
    Question,
    RelationshipQuestion,
)
from kernel.vocabulary import ObjectType

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Level = tuple[npt.NDArray[np.int64] | FloatArray, npt.NDArray[np.int64] | FloatArray]

ATTRIBUTES, RELATIONSHIPS, INSTANTIATION = 0, 1, 2  # the phases of the story line, in order


class Stream:
    """One question stream: propose, then record the answer (from an operator or the oracle)."""

    def __init__(
        self,
        stats: FittedStatistics,
        settings: EngineSettings,
        seed: Sequence[int],
        exposure: Exposure | None = None,
    ) -> None:
        self.stats = stats
        self.settings = settings
        self.seed = check_seed(seed)
        self.exposure = exposure
        self.vocabulary = stats.vocabulary
        self.story = Story(stats.vocabulary)
        self.training = TrainingState(stats)
        self._sets: dict[tuple[str, int], list[tuple[str, ...]]] = {}
        # The instantiation levels' scores, kept while the training state stays the same: attribute,
        # relationship and rejected answers leave it as it was, and the next proposal looks at the same
        # levels again (sharp first looks past an object's attributes for something sharp).
        self._scores: dict[
            tuple[int, tuple[int, ...], int], dict[str, tuple[list[Level], FloatArray, IntArray]]
        ] = {}

    @classmethod
    def resume(
        cls,
        stats: FittedStatistics,
        settings: EngineSettings,
        seed: Sequence[int],
        history: Iterable[tuple[Question, Answer]],
        exposure: Exposure | None = None,
    ) -> Stream:
        """The stream after `history` (its stored questions and answers, rejected ones included): its
        next proposal is the one the stream would have made had it never been interrupted (given the
        same exposure)."""
        stream = cls(stats, settings, seed, exposure)
        for question, answer in history:
            stream.record(question, answer)
        return stream

    # --- Answers ---------------------------------------------------------------------------------------

    def record(self, question: Question, answer: Answer) -> Label | None:
        label = self.story.record(question, answer)
        if answer != Answer.AMBIGUOUS and isinstance(question, InstantiationQuestion):
            self.training.record(question, answer)
            self._scores = {}
        return label

    # --- Estimates -------------------------------------------------------------------------------------

    def estimate(self, question: Question) -> Estimate:
        """P_H(X_q = 1) and its population, for any question after the current history."""
        self.story.check(question)
        if isinstance(question, AttributeQuestion):
            levels, found = attribute_levels(self.stats, self.story, self.training, question)
        elif isinstance(question, RelationshipQuestion):
            levels, found = relationship_levels(self.stats, self.story, self.training, question)
        else:
            return self._instantiation_estimate(question)
        return self._chain(levels, found, self.settings.last_level_strength(question))

    def _weights(self) -> list[float]:
        return self.story.remembered(
            "weights", lambda: powers(self.settings.consistency_weight, self.training.answered)
        )

    def _chain(
        self,
        levels: list[tuple[int, int]],
        found: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]],
        found_strength: float,
    ) -> Estimate:
        """The plain levels, then the found level weighted by consistency, shrunk with `found_strength`."""
        weights = self._weights()
        yes, population = weighted_sum(found[0], weights), weighted_sum(found[1], weights)
        return chain([*levels, (yes, population)], self.settings.prior_strength, found_strength)

    def _instantiation_estimate(self, question: InstantiationQuestion) -> Estimate:
        """One instantiation question, through the proposer's own batch scoring."""
        t = self.vocabulary.type_index[question.type]
        region = self.vocabulary.region_index[question.region]
        levels, p, n = self._score_instantiation(t, [region], [question.attributes])[question.kind]
        return _estimate_at((p, n), levels, 0)

    def _score_instantiation(
        self, t: int, regions: Sequence[int], sets: Sequence[tuple[str, ...]]
    ) -> dict[str, tuple[list[Level], FloatArray, IntArray]]:
        """Per instantiation kind (by name), the levels, p and population of every (attribute set, region) of one type, all
        sets of one size, in the order set-major, then region (index set * len(regions) + region)."""
        if not sets[0]:
            counts = self.training.counts_without_attributes(t, regions)
            per_kind = {kind: (c.yes[None], c.population[None]) for kind, c in counts.items()}
        else:
            object_type = self.vocabulary.types[t]
            masks = [object_type.mask_of(s) for s in sets]
            by_region = self.training.counts_with_attributes(t, regions, masks)
            per_kind = {
                kind: (np.stack([c.yes for c in cs], 1), np.stack([c.population for c in cs], 1))
                for kind, cs in by_region.items()
            }
        scored = {}
        for kind, (yes, population) in per_kind.items():  # (sets, regions, d)
            depth = yes.shape[2]
            levels = self._levels(Counts(yes.reshape(-1, depth), population.reshape(-1, depth)))
            p, n = chain_arrays(levels, self.settings.prior_strength, self.settings.weighted_strength)
            scored[kind] = (levels, p, n)
        return scored

    def _levels(self, counts: Counts) -> list[Level]:
        """An instantiation batch's pooled level (summed over d) and its consistency-weighted level."""
        weights = self._weights()
        return [
            (counts.yes.sum(1), counts.population.sum(1)),
            (weighted_sums(counts.yes, weights), weighted_sums(counts.population, weights)),
        ]

    # --- Proposing -------------------------------------------------------------------------------------

    def propose(self) -> Proposal | None:
        """The next question, or None when the stream is over."""
        if self.story.answered >= self.settings.max_questions:
            return None
        if not self.story.entries:
            # Every stream starts from the same empty history: its candidates are worked out once per
            # process and settings (at a million training images that first look takes about a second).
            first = self.stats.memo.get(("first candidates", self.settings))
            if first is None:
                first = self.stats.memo[("first candidates", self.settings)] = self._candidates(
                    self._groups()
                )
            return self._draw(first)
        return self._pick(self._groups())

    def _groups(self) -> Iterator[list[Proposal]]:
        """The unpredictable candidates of each group, in story-line and simplicity order: the latest
        object's attribute levels, its relationships, the focus region's instantiation levels, then the
        whole region set's. Lazily, so a group is estimated only when the ones before it did not settle
        the choice."""
        latest = self.story.latest
        phase = self._phase_reached()
        if latest is not None and phase == ATTRIBUTES:
            for level in attribute_candidates(
                self.story, self.vocabulary, self.settings, latest.label, self.stats.memo
            ):
                yield self._winners(level, [self.estimate(q) for q in level])
        if latest is not None and phase <= RELATIONSHIPS:
            relationships = relationship_candidates(self.story, self.vocabulary, latest.label)
            yield self._winners(relationships, [self.estimate(q) for q in relationships])
        if self.story.focus is not None:
            # When nothing sharp is left there, the whole region set is next. The focus itself is kept
            # (it is what the history says), so that the next proposal depends on the history alone.
            yield from self._instantiation_groups(self._focus_regions(self.story.focus))
        yield from self._instantiation_groups(range(len(self.vocabulary.regions)))

    def candidates(self) -> Choice:
        """What the next proposal is drawn among (nothing left: the stream is over)."""
        if self.story.answered >= self.settings.max_questions:
            return Choice([], [])
        return self._candidates(self._groups())

    def _pick(self, groups: Iterable[list[Proposal]]) -> Proposal | None:
        """One of `_candidates(groups)`, drawn; None: nothing unpredictable is left."""
        return self._draw(self._candidates(groups))

    def _candidates(self, groups: Iterable[list[Proposal]]) -> Choice:
        """Sharp first: the sharp candidates (abs(p - 0.5) <= sharp_epsilon) of the first group holding
        one; when no group has one, every unpredictable candidate of the first group with any (the
        paper's rule); empty when nothing unpredictable is left. With their whole group."""
        sharp_epsilon = self.settings.sharp_epsilon
        fallback: list[Proposal] = []
        for winners in groups:
            sharp = (
                winners
                if sharp_epsilon is None
                else [w for w in winners if _rho(w.estimate) <= sharp_epsilon + 1e-12]
            )
            if sharp:
                return Choice(sharp, winners)
            fallback = fallback or winners
        return Choice(fallback, fallback)

    def _draw(self, choice: Choice) -> Proposal | None:
        """One of the preferred candidates, drawn uniformly with the step's generator; with an
        exposure, one of the least exposed (`engine.core.exposure.least_exposed`), by the same one draw over fewer."""
        drawn = (
            choice.preferred
            if self.exposure is None
            else least_exposed(choice, self.exposure, self.story.entries)
        )
        return drawn[int(self.step_rng().integers(len(drawn)))] if drawn else None

    def _phase_reached(self) -> int:
        """The furthest phase of the story line asked since the latest object was instantiated.

        The story never goes back: an instantiation answer changes the populations of the bound levels,
        and could make an attribute of the latest object unpredictable again after the stream has moved
        on; asking it then would break the story line (and tell a guesser that the phase changed)."""
        latest = self.story.latest
        if latest is None:
            return INSTANTIATION
        phase = ATTRIBUTES
        for question, _ in self.story.entries[latest.entry + 1 :]:
            if isinstance(question, InstantiationQuestion):
                return INSTANTIATION
            if isinstance(question, RelationshipQuestion):
                phase = RELATIONSHIPS
        return phase

    def _winners(self, candidates: Sequence[Question], estimates: Sequence[Estimate]) -> list[Proposal]:
        """The unpredictable candidates: enough population, abs(p - 0.5) <= epsilon."""
        settings = self.settings
        return [
            Proposal(q, e)
            for q, e in zip(candidates, estimates, strict=True)
            if e.population >= settings.min_population
            and e.p is not None
            and abs(e.p - 0.5) <= settings.epsilon + 1e-12
        ]

    def step_rng(self) -> np.random.Generator:
        """The generator of the step about to be proposed: (stream seed, step index), nothing else."""
        return np.random.default_rng([*self.seed, len(self.story.entries)])

    def choose_instantiation(self, regions: Sequence[int] | range) -> Proposal | None:
        """The proposal the sharp-first rule makes among the instantiation questions of `regions` alone."""
        return self._pick(self._instantiation_groups(regions))

    def _instantiation_groups(self, regions: Sequence[int] | range) -> Iterator[list[Proposal]]:
        exhausted = self._regions_past_rejection_limit()
        for size in range(self.settings.max_attributes + 1):
            allowed = [w for w in regions if size == 0 or w not in exhausted]
            if allowed:
                yield self._instantiation_level(allowed, size)

    def _instantiation_level(self, regions: Sequence[int], size: int) -> list[Proposal]:
        """The unpredictable instantiation questions with `size` attributes in `regions`, never asked and
        rejected before, in candidate order (type, attribute set, region, kind). Scored in arrays, one
        batch per type: a level holds up to a few thousand candidates, and only the winners become
        question objects."""
        settings, vocabulary = self.settings, self.vocabulary
        kinds = instantiation_kinds()
        winners: list[Proposal] = []
        for t, object_type in enumerate(vocabulary.types):
            sets = self._conjunctive_sets(object_type, size)
            if not sets:
                continue
            key = (t, tuple(regions), size)
            if key not in self._scores:
                self._scores[key] = self._score_instantiation(t, regions, sets)
            scored = self._scores[key]
            unpredictable = np.stack(
                [_unpredictable(kind, *scored[kind.name], settings) for kind in kinds], 1
            ).reshape(len(sets), len(regions), len(kinds))
            for i, j, k in np.argwhere(unpredictable):
                kind = kinds[k]
                question = InstantiationQuestion(
                    kind.name, object_type.name, sets[i], vocabulary.regions[regions[j]].id
                )
                if question in self.story.rejected:
                    continue
                levels, p, n = scored[kind.name]
                winners.append(Proposal(question, _estimate_at((p, n), levels, int(i * len(regions) + j))))
        return winners

    def _conjunctive_sets(self, object_type: ObjectType, size: int) -> list[tuple[str, ...]]:
        key = (object_type.name, size)
        if key not in self._sets:
            self._sets[key] = list(attribute_sets(object_type, size, conjunctive=True))
        return self._sets[key]

    def _regions_past_rejection_limit(self) -> set[int]:
        """Regions where instantiation questions with attributes were rejected too often."""
        counts: dict[str, int] = {}
        for question in self.story.rejected:
            if isinstance(question, InstantiationQuestion) and question.attributes:
                counts[question.region] = counts.get(question.region, 0) + 1
        limit = self.settings.rejection_limit
        return {self.vocabulary.region_index[r] for r, n in counts.items() if n >= limit}

    # --- Regions ---------------------------------------------------------------------------------------

    def _focus_regions(self, focus: str) -> list[int]:
        f = self.vocabulary.region_index[focus]
        return [int(w) for w in np.flatnonzero(self.training.contains[f])]


def _unpredictable(
    kind: InstantiationKind, levels: Sequence[Level], p: FloatArray, n: IntArray, settings: EngineSettings
) -> npt.NDArray[np.bool_]:
    """Which of a batch's instantiation candidates are unpredictable: population at least
    `min_population`, abs(p - 0.5) at most epsilon and, for a kind that needs evidence (uniqueness), a
    weighted level (the last)
    weighing at least `min_evidence`. Where it weighs less, the candidates that look unpredictable are
    mostly those whose few consistent images happen to say one half (decision 0056)."""
    unpredictable = (n >= settings.min_population) & (np.abs(p - 0.5) <= settings.epsilon + 1e-12)
    if kind.needs_evidence:
        unpredictable &= levels[-1][1] >= settings.min_evidence
    return unpredictable


def _rho(estimate: Estimate) -> float:
    """abs(p - 0.5), for an estimate with a population."""
    assert estimate.p is not None
    return abs(estimate.p - 0.5)


def _estimate_at(shrunk: tuple[FloatArray, IntArray], levels: Sequence[Level], i: int) -> Estimate:
    """The i-th instantiation candidate's estimate out of a batch's arrays (its two levels)."""
    p, population = shrunk
    return Estimate(
        None if np.isnan(p[i]) else float(p[i]),
        int(population[i]),
        ((int(levels[0][0][i]), int(levels[0][1][i])), (float(levels[1][0][i]), float(levels[1][1][i]))),
    )


def check_seed(seed: Sequence[int]) -> tuple[int, ...]:
    """A stream seed is a few non-negative integers, e.g. (test seed, image position, stream number)."""
    words = tuple(seed)
    if not words or not all(isinstance(w, int) and not isinstance(w, bool) and w >= 0 for w in words):
        raise SettingError("a stream seed is one or more non-negative integers", where="seed")
    return words
