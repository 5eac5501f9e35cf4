"""The engine's settings: what makes a candidate unpredictable, how estimates are shrunk, when a stream
ends (docs/engine.md "Settings"). Frozen with a test, so its streams can be resumed and replayed."""

from __future__ import annotations

from dataclasses import dataclass

from kernel.errors import SettingError
from kernel.questions import Question, RelationshipQuestion

# The weighted level's strength by default: where the log-loss of p on the audit's cross-fitted training
# streams is least, for every kind of question, on street and parking (decision 0055).
WEIGHTED_STRENGTH = 2.0
# The weighted found level's strength in a relationship question's chain. That level counts only the
# images that give both labels' defining histories (decision 0057), a handful where the weighted level
# of an attribute has many, and the engine draws among many relationship candidates, mostly false: at
# the attributes' strength the ones whose few images happen to say one half were the ones drawn, and
# p was too high on them. 20 is where mean p meets the yes rate on cross-fitted training streams
# generated with each strength, on street and parking (decision 0059).
RELATIONSHIP_STRENGTH = 20.0
# What the consistency-weighted level of a uniqueness candidate must weigh, by default. Below it, the
# uniqueness questions the engine picked were too high by 0.03 to 0.16 on the audit's cross-fitted
# training streams: among many candidates whose rates are mostly under one half, the ones whose few
# consistent images happen to say one half are the ones drawn (decision 0056).
MIN_EVIDENCE = 10.0


@dataclass(frozen=True)
class EngineSettings:
    epsilon: float = 0.15
    min_population: int = 20
    max_attributes: int = 2
    max_questions: int = 60
    # After this many rejected attribute questions about one object, its attributes are not explored
    # further; after this many rejected instantiation questions with attributes in one region, no more
    # are asked there. The oracle rejects all of them when the annotation marks an object's attributes
    # unknown, and an operator who cannot tell three is unlikely to tell the rest (docs/decisions).
    rejection_limit: int = 3
    # How many items of a finer population it takes to move the estimate halfway from the coarser
    # population's p to the finer one's (kernel.estimates, docs/decisions/0034).
    prior_strength: float = 40.0
    # The same for the last level of an instantiation or attribute estimate, the one weighted by
    # consistency (relationships have the next strength): what the images
    # that give the history's answers say is worth more than a coarser level's rate (decision 0055).
    weighted_strength: float = WEIGHTED_STRENGTH
    # The same for a relationship question's weighted found level, which counts fewer images (0059).
    relationship_strength: float = RELATIONSHIP_STRENGTH
    # lambda: a training image that disagrees with d of the history's instantiation answers counts
    # lambda^d in the finest level of every estimate (kernel.estimates, docs/decisions/0034).
    consistency_weight: float = 0.7
    # A uniqueness candidate is unpredictable only when its consistency-weighted level (the images that
    # give the history's answers, each counting lambda^d) weighs at least this much (decision 0056).
    min_evidence: float = MIN_EVIDENCE
    # Sharper questions: the first group of candidates holding one with abs(p - 0.5) <= sharp_epsilon
    # wins, and the draw is among those. None turns it off (docs/decisions/0035).
    sharp_epsilon: float | None = 0.05

    def __post_init__(self) -> None:
        if not 0 <= self.epsilon <= 0.5:
            raise SettingError("epsilon must be between 0 and 0.5", where="epsilon")
        if self.min_population < 1:
            raise SettingError("min_population must be at least 1", where="min_population")
        if not 0 <= self.max_attributes <= 2:
            raise SettingError("max_attributes must be 0, 1 or 2", where="max_attributes")
        if self.max_questions < 1:
            raise SettingError("max_questions must be at least 1", where="max_questions")
        if self.rejection_limit < 1:
            raise SettingError("rejection_limit must be at least 1", where="rejection_limit")
        if not 0 < self.prior_strength <= 1e9:
            raise SettingError(
                "prior_strength must be above 0 and at most 1,000,000,000", where="prior_strength"
            )
        if not 0 < self.weighted_strength <= 1e9:
            raise SettingError(
                "weighted_strength must be above 0 and at most 1,000,000,000", where="weighted_strength"
            )
        if not 0 < self.relationship_strength <= 1e9:
            raise SettingError(
                "relationship_strength must be above 0 and at most 1,000,000,000",
                where="relationship_strength",
            )
        if not 0 <= self.min_evidence <= 1e9:
            raise SettingError("min_evidence must be between 0 and 1,000,000,000", where="min_evidence")
        if not 0 < self.consistency_weight <= 1:
            raise SettingError("consistency_weight must be above 0 and at most 1", where="consistency_weight")
        if self.sharp_epsilon is not None and not 0 <= self.sharp_epsilon <= self.epsilon:
            raise SettingError("sharp_epsilon must be between 0 and epsilon", where="sharp_epsilon")

    def last_level_strength(self, question: Question) -> float:
        """The strength of the last level of `question`'s chain, the one weighted by consistency: its
        own for a relationship question (decision 0059), the weighted strength for the others (0055)."""
        if isinstance(question, RelationshipQuestion):
            return self.relationship_strength
        return self.weighted_strength
