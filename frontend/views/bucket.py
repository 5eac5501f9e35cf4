"""The collection page's bucket source section (docs/storage.md): point the collection at a bucket and
prefix, sync it; post/redirect/get, the service's refusals and the sync's report as messages."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotations.models import Collection
from datasets.models import BucketSource
from datasets.services.bucket import SYNC_LIMIT, bucket_source_set, bucket_source_sync
from frontend.forms import BucketSourceForm
from frontend.views.common import collection_or_404, require
from vtt_site.errors import ApplicationError


def bucket_source_context(collection: Collection) -> dict[str, Any]:
    source = BucketSource.objects.filter(collection=collection).first()
    initial: dict[str, Any] = {"copy": True}
    if source is not None:
        initial = {
            "bucket": source.bucket,
            "key_prefix": source.prefix,
            "copy": source.copy,
            "split": source.split,
        }
    return {"bucket_source": source, "bucket_source_form": BucketSourceForm(initial=initial)}


def _back(collection: Collection) -> HttpResponse:
    return redirect(reverse("frontend:collection", args=[collection.pk]) + "#bucket-source")


@login_required
@require_POST
def bucket_source_save(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = collection_or_404(request.user, collection_id)
    require(request.user, "bucket_source.set", collection)
    form = BucketSourceForm(request.POST)
    if not form.is_valid():
        for field, errors in form.errors.items():
            messages.error(request, f"Bucket source {field}: {' '.join(str(error) for error in errors)}")
        return _back(collection)
    try:
        data = form.cleaned_data
        bucket_source_set(
            collection=collection,
            bucket=data["bucket"],
            prefix=data["key_prefix"],
            copy=data["copy"],
            split=data["split"],
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return _back(collection)
    messages.success(request, "Bucket source saved: the platform can list it. Sync it to add its images.")
    return _back(collection)


@login_required
@require_POST
def bucket_source_sync_view(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = collection_or_404(request.user, collection_id)
    require(request.user, "bucket_source.sync", collection)
    source = BucketSource.objects.filter(collection=collection).first()
    if source is None:
        messages.error(request, "This collection has no bucket source: save one first.")
        return _back(collection)
    report = bucket_source_sync(source=source, uploaded_by=request.user, limit=SYNC_LIMIT)
    messages.success(
        request,
        f"{report.added} image(s) added, {report.present} added before, {len(report.refused)} refused, "
        f"{len(report.removed)} gone from the bucket since (their images are kept)"
        + (f"; {report.left} more to add: sync again." if report.left else "."),
    )
    for key, why in report.refused[:20]:
        messages.error(request, f"{key}: {why}")
    return _back(collection)
