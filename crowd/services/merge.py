"""The merge of an image's copies, run in the transaction that submits the last of them (decision 0090).

An image's merge is a few boxes of three to five versions: matching them is an optimal assignment on
matrices of a few dozen rows and the votes a few hundred sums, milliseconds on the submit's request. A
job would add a worker's round trip and a state (all copies in, no merge yet) the pages would have to
show, for no gain. What can be slow, the reliability estimate over a whole collection, is not done here:
the merge weighs each annotator by their last stored estimate (crowd.services.reliability), refreshed
in the background every `CROWD_RELIABILITY_EVERY` merges.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from annotations.models import Image
from annotations.services.decided import annotation_accept_decided, image_wait_for_review
from crowd.conf import conf
from crowd.consensus import Merge, merge_image
from crowd.consensus.agreement import needs_review
from crowd.models import Copy, CopyState, ImageMerge, MergeState
from crowd.queues import RELIABILITY_REFRESH
from crowd.selectors import crowd_settings_of
from crowd.services.versions import (
    merge_document,
    merged_keys,
    rules_of,
    stored_priors,
    stored_weights,
    version_of,
)


def merge_if_complete(*, image: Image) -> ImageMerge | None:
    """Merge the image's copies once all `overlap` are submitted (call with the last copy's row locked,
    inside its transaction; the image row is locked here, so two last copies cannot both merge)."""
    Image.objects.select_for_update(of=("self",)).filter(pk=image.pk).first()
    settings = crowd_settings_of(image.collection)
    copies = list(Copy.objects.filter(image=image, gold=False, state=CopyState.SUBMITTED).order_by("pk"))
    # Both asked every time: a submit on a gold image (merged already) runs what any other submit runs.
    merged = ImageMerge.objects.filter(image=image).exists()
    if len(copies) < settings.overlap or merged:
        return None
    rules = rules_of(image.collection, settings)
    weights = stored_weights(image.collection)
    merge = merge_image(
        [version_of(str(c.annotator_id), c.document) for c in copies],
        weights=weights or None,
        priors=stored_priors(image.collection) if weights else None,
        exclusive=rules.exclusive,
        **rules.keywords(),
    )
    row = ImageMerge.objects.create(
        image=image,
        box_f1=merge.agreement.box_f1,
        attribute_agreement=merge.agreement.attribute_agreement,
        relationship_agreement=merge.agreement.relationship_agreement,
        merged=merge_document(merge, rules),
        disagreements=disagreements_data(merge),
        weighted=bool(weights),
    )
    if settings.auto_accept and not needs_review(merge.agreement, settings.agreement_threshold):
        annotation_accept_decided(image=image, document=row.merged, decided_by=None)
        row.state = MergeState.ACCEPTED
        row.save(update_fields=["state"])
    else:
        image_wait_for_review(image=image)
    _refresh_now_and_then(image.collection_id)
    return row


def disagreements_data(merge: Merge) -> list[dict[str, Any]]:
    """Where annotators split, for the review page: boxes by their merged id ("o2") or, for a box the
    merge dropped, by each annotator's own box id; annotators by their user id as a string (the page
    names them)."""
    ids = merged_keys(merge)
    return [
        {
            "kind": d.kind,
            "box": ids.get(d.box) if d.box else None,
            "other": ids.get(d.other) if d.other else None,
            "name": d.name,
            "yes": list(d.yes),
            "no": list(d.no),
            "decided": d.decided,
            "sources": dict(d.sources),
        }
        for d in merge.disagreements
    ]


def _refresh_now_and_then(collection_id: int) -> None:
    merged = ImageMerge.objects.filter(image__collection_id=collection_id).count()
    if merged % conf.CROWD_RELIABILITY_EVERY == 0:
        transaction.on_commit(
            lambda: RELIABILITY_REFRESH.send(collection_id, what="the crowd's reliability estimate")
        )
