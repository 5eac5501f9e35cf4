"""Each annotator's reliability in a collection, estimated again from every merged image (Dawid and
Skene, crowd.consensus.estimate_reliability; the crowd-core's decision record says why that model), and
stored for the weighted vote and the quality page. Run in the background (crowd.tasks)."""

from __future__ import annotations

from collections import defaultdict

from django.db import transaction
from django.utils import timezone

from annotations.models import Collection
from crowd.conf import conf
from crowd.consensus import Version, estimate_crowd
from crowd.models import Copy, CopyState, CrowdPriors, Reliability
from crowd.selectors import crowd_settings_of
from crowd.services.versions import rules_of, version_of


def collection_versions(collection: Collection) -> dict[str, list[Version]]:
    """image id -> the versions of its copies, for every merged image of the collection."""
    by_image: dict[str, list[Version]] = defaultdict(list)
    copies = (
        Copy.objects.filter(
            image__collection=collection,
            gold=False,
            state=CopyState.SUBMITTED,
            image__crowd_merge__isnull=False,
        )
        .order_by("image_id", "pk")
        .values_list("image_id", "annotator_id", "document")
    )
    for image_id, annotator_id, document in copies.iterator(chunk_size=2000):
        by_image[str(image_id)].append(version_of(str(annotator_id), document))
    return by_image


@transaction.atomic
def reliability_refresh(*, collection_id: int) -> int:
    """Estimate every annotator's reliability again; returns how many were estimated."""
    collection = Collection.objects.select_related("vocabulary").get(pk=collection_id)
    rules = rules_of(collection, crowd_settings_of(collection))
    estimate = estimate_crowd(
        collection_versions(collection), min_items=conf.CROWD_RELIABILITY_MIN_ITEMS, **rules.keywords()
    )
    now = timezone.now()
    priors = [[kind, label, name, p] for (kind, label, name), p in sorted(estimate.priors.items())]
    CrowdPriors.objects.update_or_create(
        collection=collection, defaults={"priors": priors, "estimated_at": now}
    )
    estimates = estimate.reliabilities
    for annotator, r in estimates.items():
        Reliability.objects.update_or_create(
            collection=collection,
            annotator_id=int(annotator),
            defaults={
                "sensitivity": r.sensitivity,
                "specificity": r.specificity,
                "n_items": r.n_items,
                "enough": r.enough,
                "kinds": {
                    kind: {
                        "sensitivity": k.sensitivity,
                        "specificity": k.specificity,
                        "n_items": k.n_items,
                        "enough": k.enough,
                    }
                    for kind, k in r.kinds.items()
                },
                "estimated_at": now,
            },
        )
    return len(estimates)
