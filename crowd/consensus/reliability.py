"""Each annotator's reliability: Dawid and Skene's two-coin model over binary decisions.

Every decision of every image (`decisions.py`: an object there, an attribute on a matched box, a
relationship on a matched pair) has an unknown true answer; annotator j says yes to a true yes of kind
k with probability `sensitivity` (j, k) and no to a true no with probability `specificity` (j, k); each
kind has its own prior P(yes). Expectation-maximisation from the soft majority vote, with one
pseudo-count of each answer (Laplace) so that no estimate is 0 or 1. A decision only one annotator
answered teaches nothing and is left out. Decision 0088 says why this model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from crowd.consensus.decisions import ATTRIBUTE, BOX, RELATION, Decision, image_decisions
from crowd.consensus.matching import match_boxes
from crowd.consensus.types import ConsensusError, CrowdEstimate, Reliability, Version

KINDS = (BOX, ATTRIBUTE, RELATION)
MIN_ITEMS = 50
ROUNDS = 100
TOLERANCE = 1e-4  # no posterior moves by more: the decisions it takes no longer change


def estimate_reliability(
    versions_by_image: Mapping[str, Sequence[Version]],
    *,
    iou_threshold: float = 0.5,
    min_items: int = MIN_ITEMS,
    attribute_universe: Mapping[str, frozenset[str]] | None = None,
    symmetric: frozenset[str] = frozenset(),
) -> dict[str, Reliability]:
    """annotator -> Reliability, over every image with at least two versions (one annotator alone
    answers nothing another can check)."""
    return dict(
        estimate_crowd(
            versions_by_image,
            iou_threshold=iou_threshold,
            min_items=min_items,
            attribute_universe=attribute_universe,
            symmetric=symmetric,
        ).reliabilities
    )


def estimate_crowd(
    versions_by_image: Mapping[str, Sequence[Version]],
    *,
    iou_threshold: float = 0.5,
    min_items: int = MIN_ITEMS,
    attribute_universe: Mapping[str, frozenset[str]] | None = None,
    symmetric: frozenset[str] = frozenset(),
) -> CrowdEstimate:
    """The reliabilities and the priors of each kind of decision (for `merge_image`'s `priors`)."""
    if min_items < 1:
        raise ConsensusError("The minimum number of decisions must be at least 1.")
    decisions: list[Decision] = []
    for versions in versions_by_image.values():
        if len(versions) >= 2:
            clusters = match_boxes(versions, iou_threshold=iou_threshold)
            found = image_decisions(
                versions, clusters, attribute_universe=attribute_universe, symmetric=symmetric
            )
            decisions.extend(d for d in found if len(d.votes) >= 2)
    return dawid_skene(decisions, min_items=min_items)


def dawid_skene(decisions: Sequence[Decision], *, min_items: int = MIN_ITEMS) -> CrowdEstimate:
    names = sorted({name for d in decisions for name in d.votes})
    if not names:
        return CrowdEstimate({}, {})
    keys = sorted({d.prior_key for d in decisions})
    key_index = {key: i for i, key in enumerate(keys)}
    index = {name: i for i, name in enumerate(names)}
    item = np.array([i for i, d in enumerate(decisions) for _ in d.votes], dtype=np.int64)
    person = np.array([index[name] for d in decisions for name in d.votes], dtype=np.int64)
    said = np.array([answer for d in decisions for answer in d.votes.values()], dtype=np.float64)
    kind = np.array([KINDS.index(d.kind) for d in decisions], dtype=np.int64)
    group = np.array([key_index[d.prior_key] for d in decisions], dtype=np.int64)  # one prior per key
    who = person * len(KINDS) + kind[item]  # one pair of coins per annotator and kind
    n_items, n_coins = len(decisions), len(names) * len(KINDS)
    truth = np.bincount(item, said, n_items) / np.bincount(item, minlength=n_items)
    for _ in range(ROUNDS):
        sens, spec, prior = _maximise(truth, item, who, said, group, n_coins)
        updated = _expect(sens, spec, prior, item, who, said, group, n_items)
        done = float(np.max(np.abs(updated - truth))) < TOLERANCE
        truth = updated
        if done:
            break
    sens, spec, prior = _maximise(truth, item, who, said, group, n_coins)
    counts = np.bincount(who, minlength=n_coins)
    pooled_sens, pooled_spec, _ = _maximise(truth, item, person, said, group, len(names))
    pooled_counts = np.bincount(person, minlength=len(names))
    result = {}
    for i, name in enumerate(names):
        kinds = {
            k: Reliability(float(sens[c]), float(spec[c]), int(counts[c]), bool(counts[c] >= min_items))
            for k, c in ((k, i * len(KINDS) + n) for n, k in enumerate(KINDS))
            if counts[c]
        }
        n = int(pooled_counts[i])
        result[name] = Reliability(float(pooled_sens[i]), float(pooled_spec[i]), n, n >= min_items, kinds)
    return CrowdEstimate(result, {key: float(prior[i]) for i, key in enumerate(keys)})


def _maximise(
    truth: np.ndarray, item: np.ndarray, who: np.ndarray, said: np.ndarray, group: np.ndarray, n_people: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    yes = truth[item]
    sens = (1 + np.bincount(who, yes * said, n_people)) / (2 + np.bincount(who, yes, n_people))
    spec = (1 + np.bincount(who, (1 - yes) * (1 - said), n_people)) / (
        2 + np.bincount(who, 1 - yes, n_people)
    )
    n_groups = int(group.max()) + 1
    prior = (1 + np.bincount(group, truth, n_groups)) / (2 + np.bincount(group, minlength=n_groups))
    return sens, spec, prior


def _expect(
    sens: np.ndarray,
    spec: np.ndarray,
    prior: np.ndarray,
    item: np.ndarray,
    who: np.ndarray,
    said: np.ndarray,
    group: np.ndarray,
    n_items: int,
) -> np.ndarray:
    yes, no = np.log(sens / (1 - spec)), np.log((1 - sens) / spec)  # per coin, then per answer
    ratio = np.where(said > 0, yes[who], no[who])
    logit = np.log(prior[group] / (1 - prior[group])) + np.bincount(item, ratio, n_items)
    return np.asarray(1 / (1 + np.exp(-np.clip(logit, -50, 50))))
