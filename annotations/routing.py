"""Which queue hands out a collection's images, and who may read them: a registry for each of these two
extension points.

The annotation and review queues of this app serve a collection unless an app that registered a router
here says that its own queue does: the crowd app, for a collection whose images several annotators draw
each (`crowd.services.routing`). A router takes a collection's id and answers None (not mine) or the
sentence that tells a person where its images are handed out. This app never imports the apps that fill
the registry; `tests/annotations/test_routing.py` proves the queues ask it.
"""

from __future__ import annotations

from collections.abc import Callable

from annotations.errors import AnnotationErrorCode
from vtt_site.errors import ConflictError

Router = Callable[[int], str | None]
_routers: dict[str, Router] = {}


def register_router(name: str, router: Router) -> None:
    """Register (or replace, when an app's `ready` runs twice) the router an app names."""
    _routers[name] = router


def queue_elsewhere(collection_id: int) -> str | None:
    """Where the collection's images are handed out instead, if a registered router claims it."""
    for router in _routers.values():
        said = router(collection_id)
        if said is not None:
            return said
    return None


def require_own_queue(collection_id: int) -> None:
    """409 when another queue hands out the collection's images."""
    said = queue_elsewhere(collection_id)
    if said is not None:
        raise ConflictError(AnnotationErrorCode.QUEUE_ELSEWHERE, said)


# (collection id, the reader's membership role there) -> why that member may not read the collection's
# images, or None. The crowd app: an annotator of a crowd collection sees only their own work, never the
# accepted images (which include its hidden gold answers).
ReaderRule = Callable[[int, str | None], str | None]
_reader_rules: dict[str, ReaderRule] = {}


def register_reader_rule(name: str, rule: ReaderRule) -> None:
    _reader_rules[name] = rule


def images_hidden(collection_id: int, member_role: str | None) -> str | None:
    """Why a member in `member_role` may not read the collection's images (None: they may)."""
    for rule in _reader_rules.values():
        said = rule(collection_id, member_role)
        if said is not None:
            return said
    return None
