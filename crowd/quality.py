"""Each annotator's quality in a crowd collection, for its reviewers and admins (a selector: reads only).

Per annotator: images done (not counting gold), the median time from taking an image to submitting it,
gold accuracy (right decisions of all, crowd.consensus.gold_decisions) with its 95% Wilson interval,
agreement with the merge (the mean box F1 of their version against the accepted merge of each image
they drew, at most the last `AGREEMENT_IMAGES`), the estimated reliability (crowd.services.reliability)
and whether they are paused.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Sum

from annotations.models import Collection
from crowd.consensus import score_against_gold
from crowd.models import Copy, CopyState, GoldScore, ImageMerge, MergeState, Pause, Reliability
from crowd.selectors import crowd_settings_of
from crowd.services.versions import rules_of, version_of
from scoring.stats import wilson_interval

AGREEMENT_IMAGES = 500
COLUMNS = (
    "annotator",
    "images_done",
    "seconds_per_image",
    "gold_images",
    "gold_accuracy",
    "gold_low",
    "gold_high",
    "merge_agreement",
    "sensitivity",
    "specificity",
    "reliability_decisions",
    "paused",
)


def annotator_quality(*, collection: Collection) -> list[dict[str, Any]]:
    submitted = Copy.objects.filter(image__collection=collection, state=CopyState.SUBMITTED)
    annotators = sorted(set(submitted.values_list("annotator_id", flat=True)))
    names = dict(get_user_model().objects.filter(pk__in=annotators).values_list("pk", "username"))
    seconds = defaultdict(list)
    for annotator, taken, finished in submitted.values_list("annotator_id", "taken_at", "submitted_at"):
        if finished is not None:
            seconds[annotator].append((finished - taken).total_seconds())
    done = dict(
        submitted.filter(gold=False)
        .values("annotator_id")
        .annotate(n=Count("pk"))
        .values_list("annotator_id", "n")
    )
    reliability = {r.annotator_id: r for r in Reliability.objects.filter(collection=collection)}
    paused = set(
        Pause.objects.filter(collection=collection, lifted_at__isnull=True).values_list(
            "annotator_id", flat=True
        )
    )
    agreement = _merge_agreement(collection)
    gold = _gold_by_annotator(collection)
    rows = []
    for annotator in annotators:
        r = reliability.get(annotator)
        rows.append(
            {
                "annotator": names.get(annotator, "?"),
                "images_done": done.get(annotator, 0),
                "seconds_per_image": round(statistics.median(seconds[annotator]), 1)
                if seconds[annotator]
                else None,
                **gold.get(annotator, _gold_figures(0, 0, 0)),
                "merge_agreement": agreement.get(annotator),
                "sensitivity": r.sensitivity if r else None,
                "specificity": r.specificity if r else None,
                "reliability_decisions": r.n_items if r else 0,
                "paused": annotator in paused,
            }
        )
    return rows


def _gold_by_annotator(collection: Collection) -> dict[int, dict[str, Any]]:
    """Each annotator's gold figures, in one grouped query (not two per annotator)."""
    grouped = (
        GoldScore.objects.filter(copy__image__collection=collection)
        .values("copy__annotator_id")
        .annotate(correct=Sum("correct"), total=Sum("total"), images=Count("pk"))
    )
    return {
        row["copy__annotator_id"]: _gold_figures(row["correct"] or 0, row["total"] or 0, row["images"])
        for row in grouped
    }


def _gold_figures(correct: int, total: int, images: int) -> dict[str, Any]:
    interval = wilson_interval(correct, total)
    return {
        "gold_images": images,
        "gold_accuracy": correct / total if total else None,
        "gold_low": interval[0] if interval else None,
        "gold_high": interval[1] if interval else None,
    }


def _merge_agreement(collection: Collection) -> dict[int, float]:
    """annotator -> the mean F1 of their boxes against the accepted merge of the images they drew."""
    rules = rules_of(collection, crowd_settings_of(collection))
    merges = dict(
        ImageMerge.objects.filter(image__collection=collection, state=MergeState.ACCEPTED)
        .order_by("-image_id")
        .values_list("image_id", "merged")[:AGREEMENT_IMAGES]
    )
    f1s: dict[int, list[float]] = defaultdict(list)
    copies = Copy.objects.filter(image_id__in=list(merges), gold=False, state=CopyState.SUBMITTED)
    for image_id, annotator, document in copies.values_list("image_id", "annotator_id", "document"):
        score = score_against_gold(
            version_of("work", document or {}),
            version_of("gold", merges[image_id]),
            iou_threshold=rules.iou_threshold,
        )
        f1s[annotator].append(score.f1 if score.f1 is not None else 1.0)
    return {annotator: sum(values) / len(values) for annotator, values in f1s.items()}
