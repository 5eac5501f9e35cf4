"""Hidden gold: a reviewer marks an accepted image as gold; an annotator's work on it is scored against
the answer it was accepted with (never merged, never in the training set), and an annotator whose gold
accuracy is surely below the collection's threshold is paused from its queue until a reviewer lifts it.

The queue mixes gold in (crowd.services.queue); what the annotator is given, sees and is answered is
the same for a gold image as for any other (tests/crowd/test_gold.py compares them).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from annotations.models import Collection, Image, Stage
from annotations.selectors.annotation import image_annotation
from crowd.consensus import gold_decisions, score_against_gold, should_pause
from crowd.errors import CrowdErrorCode
from crowd.models import Copy, CopyState, GoldImage, GoldScore, Pause
from crowd.selectors import active_pause, crowd_settings_of, require_crowd
from crowd.services.versions import rules_of, version_of
from scoring.stats import wilson_interval
from vtt_site.errors import ConflictError, NotFoundError


@transaction.atomic
def gold_mark(*, image: Image, user: Any) -> GoldImage:
    """Make an accepted image of a crowd collection gold, its answer the annotation it was accepted with."""
    require_crowd(image.collection)
    locked = Image.objects.select_for_update(of=("self",)).get(pk=image.pk)
    if locked.stage != Stage.ACCEPTED:
        raise ConflictError(
            CrowdErrorCode.GOLD_NOT_ACCEPTED,
            f"{locked.original_name} is {locked.get_stage_display()}: only an accepted image can be gold. "
            "Nothing was changed.",
        )
    record = image_annotation(image=locked)
    answer = {"objects": record["objects"], "relationships": record["relationships"]}
    gold, _ = GoldImage.objects.get_or_create(image=locked, defaults={"answer": answer, "marked_by": user})
    return gold


@transaction.atomic
def gold_scores_catch_up(*, copy_id: int) -> int:
    """Score the submitted copy of a gold image, and any other gold work of its annotator in the collection
    left unscored (a lost message); safe to run twice (the copy rows are locked, a scored copy is left
    alone). How many were scored."""
    copy = Copy.objects.select_related("image__collection").filter(pk=copy_id).first()
    if copy is None:
        return 0
    waiting = (
        Copy.objects.select_for_update(of=("self",))
        .select_related("image__collection", "annotator")
        .filter(
            annotator_id=copy.annotator_id,
            image__collection_id=copy.image.collection_id,
            gold=True,
            state=CopyState.SUBMITTED,
            gold_score__isnull=True,
        )
        .order_by("submitted_at", "pk")
    )
    scored = 0
    for work in waiting:
        gold_score(copy=work)
        scored += 1
    return scored


def gold_score(*, copy: Copy) -> GoldScore:
    """Score a submitted copy of a gold image, then apply the pause rule to its annotator."""
    collection = copy.image.collection
    settings = crowd_settings_of(collection)
    rules = rules_of(collection, settings)
    answer = GoldImage.objects.get(image_id=copy.image_id).answer
    score = score_against_gold(
        version_of("work", copy.document or {}),
        version_of("gold", answer),
        iou_threshold=rules.iou_threshold,
        attribute_universe=rules.attribute_universe,
    )
    correct, total = gold_decisions(score)
    # get_or_create: a task and a catch-up that meet score the copy once (the unique copy decides).
    row, _ = GoldScore.objects.get_or_create(
        copy=copy,
        defaults={
            "box_f1": score.f1 if score.f1 is not None else 1.0,  # nothing drawn where nothing is: right
            "attribute_accuracy": score.attribute_accuracy,
            "correct": correct,
            "total": total,
        },
    )
    _pause_if_below(collection, copy.annotator, settings)
    return row


def gold_record(*, collection: Collection, annotator_id: int) -> tuple[int, int, int]:
    """(correct, total, gold images) of the annotator's gold work since their last pause was lifted."""
    lifted = (
        Pause.objects.filter(collection=collection, annotator_id=annotator_id, lifted_at__isnull=False)
        .order_by("-lifted_at")
        .values_list("lifted_at", flat=True)
        .first()
    )
    scores = GoldScore.objects.filter(copy__image__collection=collection, copy__annotator_id=annotator_id)
    if lifted is not None:
        scores = scores.filter(scored_at__gt=lifted)
    rows = list(scores.values_list("correct", "total"))
    return sum(c for c, _ in rows), sum(t for _, t in rows), len(rows)


def _pause_if_below(collection: Collection, annotator: Any, settings) -> None:
    if settings.pause_threshold <= 0 or active_pause(collection=collection, user=annotator) is not None:
        return
    correct, total, images = gold_record(collection=collection, annotator_id=annotator.pk)
    if total == 0 or not should_pause(
        correct, total, images, threshold=settings.pause_threshold, min_gold=settings.min_gold
    ):
        return
    low, high = wilson_interval(correct, total) or (0.0, 0.0)
    Pause.objects.create(
        collection=collection,
        annotator=annotator,
        reason=(
            f"on {images} images whose answer was known, {correct} of your {total} boxes and attributes "
            f"were right ({correct / total:.0%}, surely between {low:.0%} and {high:.0%}), below the "
            f"{settings.pause_threshold:.0%} this collection needs."
        ),
    )


@transaction.atomic
def pause_lift(*, collection: Collection, annotator_id: int, user: Any) -> Pause:
    """Let a paused annotator take images again; their earlier gold work no longer counts towards a pause."""
    pause = (
        Pause.objects.select_for_update()
        .filter(collection=collection, annotator_id=annotator_id, lifted_at__isnull=True)
        .first()
    )
    if pause is None:
        raise NotFoundError(
            CrowdErrorCode.PAUSE_NOT_FOUND, "That annotator is not paused in this collection."
        )
    pause.lifted_at = timezone.now()
    pause.lifted_by = user
    pause.save(update_fields=["lifted_at", "lifted_by"])
    return pause
