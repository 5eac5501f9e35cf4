"""The crowd's answer to the annotation queues' registry (annotations.routing): a collection with more
than one annotator per image is handed out by the crowd queue, and reviewed on the crowd's pages."""

from __future__ import annotations

from annotations.models import MemberRole
from annotations.routing import register_reader_rule, register_router
from crowd.models import CrowdSettings


def crowd_router(collection_id: int) -> str | None:
    overlap = (
        CrowdSettings.objects.filter(collection_id=collection_id).values_list("overlap", flat=True).first()
    )
    if overlap is None or overlap <= 1:
        return None
    return (
        f"Each image of this collection is drawn by {overlap} annotators: take images from its crowd "
        "queue, and review them on its crowd review."
    )


def crowd_reader_rule(collection_id: int, member_role: str | None) -> str | None:
    """An annotator of a crowd collection reads only their own work (the crowd API): never the images'
    annotations, which are the accepted merges and the hidden gold answers."""
    if member_role != MemberRole.ANNOTATOR or crowd_router(collection_id) is None:
        return None
    return (
        "Several annotators draw each image of this collection, and each sees only their own work: "
        "take images from its crowd queue."
    )


def register() -> None:
    register_router("crowd", crowd_router)
    register_reader_rule("crowd", crowd_reader_rule)
