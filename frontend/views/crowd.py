"""The crowd's pages: an annotator's own work on an image, and the review of a merge.

The annotator's page is the annotation page (annotate.html, annotate.js) over the crowd API: it names
no image, only the number of the annotator's work, so a gold image opens exactly as any other. The
review page shows each annotator's version beside the merge with the disagreements marked; the reviewer
picks a version, or corrects the merge in the review editor, and accepts.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotations.selectors.vocabularies import vocabulary_document
from crowd.models import CopyState, MergeState
from crowd.selectors import access_copy, access_merge, copy_document, merge_disagreements, merge_versions
from crowd.services.copies import QUEUE
from crowd.services.gold import gold_mark
from crowd.services.queue import copy_next
from crowd.services.review import merge_accept, merge_correct, merge_review_next
from frontend.plots.crowd import version_drawing
from frontend.views.common import collection_or_404, image_or_404, require
from frontend.views.work import page_data
from vtt_site.errors import ApplicationError, NotFoundError


def _take_next(request: HttpRequest, collection_id: int, operation: str, take, opened, waiting: str):
    """Take the next row of a crowd queue and open its page (`opened(row)`), or say why not."""
    collection = collection_or_404(request.user, collection_id)
    require(request.user, operation, collection)
    try:
        row = take(collection=collection, user=request.user)
    except ApplicationError as exc:
        messages.error(request, exc.message)  # paused, or not a crowd collection
        return redirect("frontend:collection", collection_id=collection.pk)
    if row is None:
        messages.info(request, f"Nothing of {collection.name} is waiting {waiting}.")
        return redirect("frontend:collection", collection_id=collection.pk)
    return opened(row)


@login_required
@require_POST
def crowd_next(request: HttpRequest, collection_id: int) -> HttpResponse:
    def opened(copy):
        return redirect("frontend:crowd-work", work_id=copy.pk)

    return _take_next(request, collection_id, "crowd.queue.next", copy_next, opened, "for you")


@login_required
@require_GET
def crowd_work(request: HttpRequest, work_id: int) -> HttpResponse:
    try:
        copy = access_copy(user=request.user, copy_id=work_id)
    except NotFoundError as exc:
        raise Http404(exc.message) from None
    collection = copy.image.collection
    require(request.user, "crowd.work.save", collection)
    if copy.state == CopyState.SUBMITTED:
        messages.info(request, "You submitted that image already.")
        return redirect("frontend:collection", collection_id=collection.pk)
    shown = SimpleNamespace(
        original_name=f"Image {copy.pk}",
        width=copy.image.width,
        height=copy.image.height,
        file=bool(copy.image.file),
    )
    context = {
        "image": shown,
        "collection": collection,
        "mode": "annotate",
        "data": work_page_data(copy),
        "editable": True,
    }
    return render(request, "frontend/annotate.html", context)


def work_page_data(copy) -> dict[str, Any]:
    """The annotation page's data for a copy: what `frontend.views.work.page_data` gives for an image,
    with the crowd's addresses and nothing that names the image."""
    collection = copy.image.collection
    document = copy_document(copy)
    return {
        "mode": "annotate",
        "image": {
            "id": copy.pk,
            "name": f"Image {copy.pk}",
            "width": copy.image.width,
            "height": copy.image.height,
            "file_url": reverse("api:crowd-work-file", args=[copy.pk]) if copy.image.file else None,
            "stage": "annotate",
            "split": "",
            "lease_expires_at": copy.lease_expires_at.isoformat() if copy.lease_expires_at else None,
            "returned": False,
            "review_comment": "",
            "review_comment_object": "",
            "reviewed_by": None,
            "annotator": None,
        },
        "annotation": {"image": f"Image {copy.pk}", **document},
        "vocabulary": vocabulary_document(collection.vocabulary),
        "urls": {
            "image": reverse("api:crowd-work-annotation", args=[copy.pk]),
            "annotation": reverse("api:crowd-work-annotation", args=[copy.pk]),
            "submit": reverse("api:crowd-work-submit", args=[copy.pk]),
            "lease": reverse("api:crowd-work-lease", args=[copy.pk]),
            "review": None,
            "collection": reverse("frontend:collection", args=[collection.pk]),
            "annotate_next": reverse("frontend:crowd-next", args=[collection.pk]),
            "review_next": None,
            "suggestions": None,
            "submitted_message": f"Submitted. Take the next image from {QUEUE}.",
        },
    }


@login_required
@require_POST
def crowd_review_next(request: HttpRequest, collection_id: int) -> HttpResponse:
    def opened(merge):
        return redirect("frontend:crowd-review", image_id=merge.image_id)

    return _take_next(
        request, collection_id, "crowd.review.next", merge_review_next, opened, "for your review"
    )


def _merge_or_404(request: HttpRequest, image_id: int, operation: str):
    image = image_or_404(request.user, image_id)
    require(request.user, operation, image.collection)
    try:
        return access_merge(user=request.user, image_id=image.pk)
    except NotFoundError as exc:
        raise Http404(exc.message) from None


@login_required
@require_GET
def crowd_review(request: HttpRequest, image_id: int) -> HttpResponse:
    merge = _merge_or_404(request, image_id, "crowd.merge.read")
    image = merge.image
    disagreements = merge_disagreements(merge)
    marked = {(d["kind"], d["box"]) for d in disagreements}
    versions = [
        v | {"drawing": version_drawing(image, v, _theirs(disagreements, v["annotator"]))}
        for v in merge_versions(merge)
    ]
    merged = {"annotator": "merge", **merge.merged}
    context = {
        "merge": merge,
        "image": image,
        "collection": image.collection,
        "versions": versions,
        "merged_drawing": version_drawing(image, merged, {box for _, box in marked if box}),
        "disagreements": disagreements,
        "reviewing": merge.state == MergeState.REVIEW and merge.lease_holder_id == request.user.pk,
        "accepted": merge.state == MergeState.ACCEPTED,
    }
    return render(request, "frontend/crowd_review.html", context)


def _theirs(disagreements: list[dict], annotator: str) -> set[str]:
    """The ids of the annotator's boxes some disagreement is about."""
    return {d["sources"][annotator] for d in disagreements if annotator in d["sources"]}


@login_required
@require_POST
def crowd_review_decide(request: HttpRequest, image_id: int) -> HttpResponse:
    """Accept the merge, or first put an annotator's version in its place (`pick`), or mark an accepted
    image as gold (`gold`)."""
    merge = _merge_or_404(request, image_id, "crowd.merge.accept")
    try:
        if "gold" in request.POST:
            require(request.user, "crowd.gold.mark", merge.image.collection)
            gold_mark(image=merge.image, user=request.user)
            messages.success(request, f"{merge.image.original_name} is gold now: annotators get it unawares.")
        elif request.POST.get("pick"):
            picked = [v for v in merge_versions(merge) if v["annotator"] == request.POST["pick"]]
            if not picked:
                raise Http404("That annotator did not draw this image.")
            merge_correct(merge=merge, user=request.user, document=picked[0])
            messages.success(
                request, f"{picked[0]['annotator']}'s version is the merge now; accept it, or correct it."
            )
        else:
            merge_accept(merge=merge, user=request.user)
            messages.success(
                request, f"Accepted: {merge.image.original_name} joins the collection's accepted images."
            )
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect("frontend:crowd-review", image_id=merge.image_id)


@login_required
@require_GET
def crowd_review_edit(request: HttpRequest, image_id: int) -> HttpResponse:
    """The review editor over the merge: corrections saved to the merge, Accept accepts it."""
    merge = _merge_or_404(request, image_id, "crowd.merge.correct")
    if not (merge.state == MergeState.REVIEW and merge.lease_holder_id == request.user.pk):
        messages.warning(request, "Take the merge to review first.")
        return redirect("frontend:crowd-review", image_id=image_id)
    image = merge.image
    data = page_data(image, "review")
    data["image"] |= {
        "lease_expires_at": merge.lease_expires_at.isoformat() if merge.lease_expires_at else None
    }
    data["annotation"] = {
        "image": image.original_name,
        "width": image.width,
        "height": image.height,
        **merge.merged,
    }
    data["urls"] |= {
        "annotation": reverse("api:crowd-merge", args=[image.pk]),
        "review": reverse("api:crowd-merge-accept", args=[image.pk]),
        "lease": reverse("api:crowd-merge", args=[image.pk]),
        "review_next": reverse("frontend:crowd-review-next", args=[image.collection_id]),
        "crowd_review": reverse("frontend:crowd-review", args=[image.pk]),
    }
    context = {
        "image": image,
        "collection": image.collection,
        "mode": "review",
        "data": data,
        "editable": True,
        "crowd_merge": True,
    }
    return render(request, "frontend/review.html", context)
