"""The annotator's and the reviewer's work: take the next image of a queue, and the pages to work on it.

The pages are shells: the view checks scope, role and lease, and embeds what the script needs to start
(the image, its annotation as a scene graph, the vocabulary document and the API addresses) so the page
is ready without further round trips. Every change then goes through the REST API, which re-checks all.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotations.models import Image, Stage
from annotations.selectors.annotation import image_annotation
from annotations.selectors.images import image_picture
from annotations.selectors.vocabularies import vocabulary_document
from annotations.services.annotation import holds_image
from annotations.services.queues import annotation_next, review_next
from crowd.selectors import is_crowd
from frontend.views.common import allowed, collection_or_404, image_or_404, require


def _take_next(request: HttpRequest, collection_id: int, operation: str, take, page: str, waiting: str):
    """Lease the next image of a queue and open its working page, or say that nothing is waiting."""
    collection = collection_or_404(request.user, collection_id)
    require(request.user, operation, collection)
    image = take(collection=collection, user=request.user)
    if image is None:
        messages.info(request, f"No image of {collection.name} is waiting {waiting}.")
        return redirect("frontend:collection", collection_id=collection.pk)
    return redirect(page, image_id=image.pk)


def _to_crowd(name: str, collection_id: int) -> HttpResponse:
    """Several annotators draw each image of the collection: the crowd's queue hands them out. A 307
    keeps the form's POST (and its CSRF token) on the way."""
    return HttpResponseRedirect(reverse(name, args=[collection_id]), preserve_request=True)


@login_required
@require_POST
def annotate_next(request: HttpRequest, collection_id: int) -> HttpResponse:
    if is_crowd(collection_or_404(request.user, collection_id)):
        return _to_crowd("frontend:crowd-next", collection_id)
    return _take_next(
        request,
        collection_id,
        "queue.annotation.next",
        annotation_next,
        "frontend:annotate",
        "to be annotated",
    )


@login_required
@require_POST
def review_next_view(request: HttpRequest, collection_id: int) -> HttpResponse:
    if is_crowd(collection_or_404(request.user, collection_id)):
        return _to_crowd("frontend:crowd-review-next", collection_id)
    return _take_next(
        request, collection_id, "queue.review.next", review_next, "frontend:review", "for your review"
    )


def _held_page(request: HttpRequest, image_id: int, stage: Stage, operation: str, mode: str, queue: str):
    """The working page of an image the user holds in `stage`; otherwise its read-only view."""
    image = image_or_404(request.user, image_id)
    require(request.user, operation, image.collection)
    if not holds_image(image, request.user, stage):
        messages.warning(request, f"You do not hold {image.original_name}: take it with “{queue}”.")
        return redirect("frontend:image", image_id=image.pk)
    return _work_page(request, image, mode)


@login_required
@require_GET
def annotate(request: HttpRequest, image_id: int) -> HttpResponse:
    return _held_page(request, image_id, Stage.ANNOTATE, "annotation.save", "annotate", "Annotate next")


@login_required
@require_GET
def review(request: HttpRequest, image_id: int) -> HttpResponse:
    return _held_page(request, image_id, Stage.REVIEW, "review.decide", "review", "Review next")


@login_required
@require_GET
def image_view(request: HttpRequest, image_id: int) -> HttpResponse:
    """Any member may look at an image; whoever holds its lease is sent to the page to work on it."""
    image = image_or_404(request.user, image_id)
    if holds_image(image, request.user, Stage.ANNOTATE) and allowed(
        request.user, "annotation.save", image.collection
    ):
        return redirect("frontend:annotate", image_id=image.pk)
    if holds_image(image, request.user, Stage.REVIEW) and allowed(
        request.user, "review.decide", image.collection
    ):
        return redirect("frontend:review", image_id=image.pk)
    return _work_page(request, image, "view")


def _work_page(request: HttpRequest, image: Image, mode: str) -> HttpResponse:
    data = page_data(image, mode)
    template = "frontend/annotate.html" if mode == "annotate" else "frontend/review.html"
    context = {
        "image": image,
        "collection": image.collection,
        "mode": mode,
        "data": data,
        "editable": mode in ("annotate", "review"),  # a reviewer may correct before deciding
    }
    return render(request, template, context)


def _username(user: Any) -> str | None:
    return user.username if user is not None else None


def page_data(image: Image, mode: str) -> dict[str, Any]:
    """Everything the page's script starts from, as JSON (embedded with `json_script`)."""
    collection = image.collection
    return {
        "mode": mode,
        "image": image_picture(image)
        | {
            "stage": image.stage,
            "split": image.split,
            "lease_expires_at": image.lease_expires_at.isoformat() if image.lease_expires_at else None,
            "returned": image.returned,
            "review_comment": image.review_comment,
            "review_comment_object": image.review_comment_object,
            "reviewed_by": _username(image.reviewed_by),
            "annotator": _username(image.annotator),
        },
        "annotation": image_annotation(image=image),
        "vocabulary": vocabulary_document(collection.vocabulary),
        "urls": {
            "image": reverse("api:image", args=[image.pk]),
            # The reviewer's corrections go to their own operation (recorded as the reviewer's).
            "annotation": reverse(
                "api:image-review-annotation" if mode == "review" else "api:image-annotation", args=[image.pk]
            ),
            "submit": reverse("api:image-submit", args=[image.pk]),
            "lease": reverse("api:image-lease", args=[image.pk]),
            "review": reverse("api:image-review", args=[image.pk]),
            "collection": reverse("frontend:collection", args=[collection.pk]),
            "annotate_next": reverse("frontend:annotate-next", args=[collection.pk]),
            "review_next": reverse("frontend:review-next", args=[collection.pk]),
            # A model's suggestions (decision 0078); {id} is a suggestion's.
            "suggestions": {
                "list": reverse("api:image-suggestions", args=[image.pk]),
                "reject": reverse("api:suggestion-reject", args=[0]).replace("/0/", "/{id}/"),
                "restore": reverse("api:suggestion-restore", args=[0]).replace("/0/", "/{id}/"),
            },
        },
    }
