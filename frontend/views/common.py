"""What every page of the annotation UI needs: scope and role checks in the shape of Django pages.

The annotation app's `access_*` selectors raise its `NotFoundError` for a collection the user may not
see; a page turns that into Django's 404 (which, like the API, does not tell an outsider whether it
exists). A role that may not perform an operation gets a 403: the page would not have shown the button.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404

from accounts.roles import OPERATIONS, Role, may, roles_of
from annotations.models import Collection, Image
from annotations.selectors.collections import access_collection, member_may
from annotations.selectors.images import access_image
from datasets.models import ImportJob
from datasets.selectors.imports import access_import
from vtt_site.errors import NotFoundError

# What the pages offer, as the operations of accounts.roles that they lead to.
ACTIONS = {
    "annotate": "queue.annotation.next",
    "review": "queue.review.next",
    "upload": "image.upload",
    "import": "import.create",
    "export": "export.read",
    "model_backend": "suggestions.backend.set",
    "bucket_source": "bucket_source.set",
}


def allowed_actions(user: Any, collection: Collection | None = None) -> dict[str, bool]:
    """{"annotate": True, "review": False, ...}: by the user's roles, and inside a collection by the role
    their membership there grants (decision 0006)."""
    return {action: allowed(user, operation, collection) for action, operation in ACTIONS.items()}


# How a 403 page names what was refused (the operation's code otherwise).
DOINGS = {
    "queue.annotation.next": "annotating images",
    "annotation.save": "annotating images",
    "queue.review.next": "reviewing images",
    "review.decide": "reviewing images",
    "image.upload": "uploading images",
    "import.create": "importing scene graphs",
    "import.read": "following imports",
    "import.confirm": "going on with imports",
    "import.cancel": "cancelling imports",
    "suggestions.backend.set": "connecting a model server",
    "suggestions.backend.check": "checking a model server",
    "suggestions.preannotate": "pre-annotating with a model",
    "bucket_source.set": "filling a collection from a bucket",
    "bucket_source.sync": "filling a collection from a bucket",
    "truthing.queue.next": "truthing tests",
    "truthing.stream.read": "truthing tests",
    "truthing.check.read": "checking streams",
    "truthing.disagreement.list": "adjudicating disagreements",
    "truthing.disagreement.decide": "adjudicating disagreements",
    "truthing.test.list": "reading tests",
    "truthing.test.read": "reading tests",
    "truthing.test.start": "starting tests",
    "truthing.test.publish": "publishing tests",
    "truthing.test.archive": "archiving tests",
    "truthing.operators.statistics": "reading operators' statistics",
}


def allowed(user: Any, operation: str, collection: Collection | None = None) -> bool:
    if collection is None:
        return may(user, operation)
    return member_may(user=user, collection=collection, operation=operation)


def require(user: Any, operation: str, collection: Collection | None = None) -> None:
    if not allowed(user, operation, collection):
        roles = ", ".join(sorted(roles_of(user))) or "none"
        needed = " or ".join(sorted(role for role in OPERATIONS[operation] if role != Role.ADMIN)) or "admin"
        doing = DOINGS.get(operation, operation)
        raise PermissionDenied(f"Your roles ({roles}) do not allow {doing}: it needs the {needed} role.")


def collection_or_404(user: Any, collection_id: int) -> Collection:
    try:
        return access_collection(user=user, collection_id=collection_id)
    except NotFoundError as exc:
        raise Http404(exc.message) from None


def image_or_404(user: Any, image_id: int) -> Image:
    try:
        return access_image(user=user, image_id=image_id)
    except NotFoundError as exc:
        raise Http404(exc.message) from None


def import_or_404(user: Any, job_id: int) -> ImportJob:
    try:
        return access_import(user=user, job_id=job_id)
    except NotFoundError as exc:
        raise Http404(exc.message) from None
