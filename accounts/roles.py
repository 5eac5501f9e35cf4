"""Which role may do what: the one place that says it.

Roles are Django groups (created by migration 0002). An API view names the operation it performs
(`operation = "..."`, or `operations = {"GET": ..., "POST": ...}`); `accounts.permissions` checks the
user's roles against `OPERATIONS`. Scope (which collection a user works on) is a separate question,
answered by collection membership in the apps' `access_*` selectors; inside a collection a user acts
only in the role their membership there grants (`may_as`, decision 0006). Admins (members of the admin group,
who are also staff so they can use the Django admin, and superusers) may do everything.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Role(StrEnum):
    ANNOTATOR = "annotator"
    REVIEWER = "reviewer"
    OPERATOR = "operator"
    VISION_SYSTEM_OWNER = "vision-system owner"
    ADMIN = "admin"


def allow(*roles: Role) -> frozenset[Role]:
    return frozenset(roles) | {Role.ADMIN}


EVERYONE = frozenset(Role)
# People who work on collections: they see vocabularies, collections and images of the collections they
# belong to.
COLLECTION_WORKERS = allow(Role.ANNOTATOR, Role.REVIEWER, Role.OPERATOR)

OPERATIONS: dict[str, frozenset[Role]] = {
    # accounts
    "account.read": EVERYONE,
    "tokens.list": EVERYONE,
    "tokens.create": EVERYONE,
    "tokens.revoke": EVERYONE,
    # annotations: vocabularies are public knowledge; everything else is scoped to the collections a
    # user is a member of (annotations.selectors.collections.access_collection).
    "vocabulary.list": EVERYONE,
    "vocabulary.read": EVERYONE,
    "vocabulary.create": allow(),
    "vocabulary.update": allow(),
    "collection.list": COLLECTION_WORKERS,
    "collection.read": COLLECTION_WORKERS,
    "collection.create": allow(),
    "collection.members.list": COLLECTION_WORKERS,
    "collection.members.add": allow(),
    "collection.members.remove": allow(),
    "image.list": COLLECTION_WORKERS,
    "image.read": COLLECTION_WORKERS,
    "image.file": COLLECTION_WORKERS,
    "image.upload": allow(Role.ANNOTATOR, Role.REVIEWER),
    "image.update": allow(Role.REVIEWER),
    "annotation.read": COLLECTION_WORKERS,
    "annotation.save": allow(Role.ANNOTATOR),
    "annotation.submit": allow(Role.ANNOTATOR),
    "queue.annotation.next": allow(Role.ANNOTATOR),
    "queue.review.next": allow(Role.REVIEWER),
    "queue.release": allow(Role.ANNOTATOR, Role.REVIEWER),
    "review.decide": allow(Role.REVIEWER),
    "review.correct": allow(Role.REVIEWER),
    "import.create": allow(Role.REVIEWER),
    "import.read": allow(Role.REVIEWER),
    "import.list": allow(Role.REVIEWER),
    "import.confirm": allow(Role.REVIEWER),
    "import.cancel": allow(Role.REVIEWER),
    "export.read": COLLECTION_WORKERS,
    "export.bucket": allow(Role.REVIEWER),
    # a collection filled from a bucket (issue 49): its reviewers point it at one and sync it
    "bucket_source.read": allow(Role.REVIEWER),
    "bucket_source.set": allow(Role.REVIEWER),
    "bucket_source.sync": allow(Role.REVIEWER),
    # suggestions from a model (decision 0078): a reviewer of the collection connects its model server
    # and pre-annotates; the annotator holding an image (and its reviewers) read its suggestions. A
    # vision system has no part in it: suggestions are annotation data.
    # crowds (issue 48): a collection's reviewers set it up, review the merges, mark gold and read each
    # annotator's quality; an annotator reaches only their own work (crowd.selectors.access_copy).
    "crowd.settings.read": COLLECTION_WORKERS,
    "crowd.settings.update": allow(Role.REVIEWER),
    "crowd.queue.next": allow(Role.ANNOTATOR),
    "crowd.work.read": allow(Role.ANNOTATOR),
    "crowd.work.save": allow(Role.ANNOTATOR),
    "crowd.work.submit": allow(Role.ANNOTATOR),
    "crowd.work.release": allow(Role.ANNOTATOR),
    "crowd.work.file": allow(Role.ANNOTATOR),
    "crowd.merges.list": allow(Role.REVIEWER),
    "crowd.summary": allow(Role.REVIEWER),
    "crowd.review.next": allow(Role.REVIEWER),
    "crowd.merge.read": allow(Role.REVIEWER),
    "crowd.merge.correct": allow(Role.REVIEWER),
    "crowd.merge.release": allow(Role.REVIEWER),
    "crowd.merge.accept": allow(Role.REVIEWER),
    "crowd.gold.mark": allow(Role.REVIEWER),
    "crowd.pauses.list": allow(Role.REVIEWER),
    "crowd.pauses.lift": allow(Role.REVIEWER),
    "crowd.quality.read": allow(Role.REVIEWER),
    "crowd.copies.export": allow(Role.REVIEWER),
    "suggestions.backend.read": allow(Role.REVIEWER),
    "suggestions.backend.set": allow(Role.REVIEWER),
    "suggestions.backend.clear": allow(Role.REVIEWER),
    "suggestions.backend.check": allow(Role.REVIEWER),
    "suggestions.preannotate": allow(Role.REVIEWER),
    "suggestions.preannotate.read": allow(Role.REVIEWER),
    "suggestions.read": allow(Role.ANNOTATOR, Role.REVIEWER),
    # ... and rejected (or the rejection taken back) by the annotator holding the image.
    "suggestions.reject": allow(Role.ANNOTATOR),
    "suggestions.restore": allow(Role.ANNOTATOR),
    # engine: everyone may see what statistics exist and ask for estimates (vision-system designers are
    # given the training data anyway, docs/method.md); fitting is an admin's decision.
    "statistics.list": EVERYONE,
    "statistics.read": EVERYONE,
    "statistics.estimate": EVERYONE,
    "statistics.create": allow(),
    # truthing: admins build tests; operators truth and check; reviewers adjudicate. Vision-system owners
    # have no part in it: what a system may see of a test comes through evaluation only.
    "truthing.test.list": allow(Role.OPERATOR, Role.REVIEWER),
    "truthing.test.read": allow(Role.OPERATOR, Role.REVIEWER),
    "truthing.test.create": allow(),
    "truthing.test.start": allow(),
    "truthing.test.publish": allow(),
    "truthing.test.archive": allow(),
    "truthing.test.export": allow(),
    "truthing.test.audit": allow(),
    "truthing.test.pool.grow": allow(),
    "truthing.queue.next": allow(Role.OPERATOR),
    "truthing.stream.read": allow(Role.OPERATOR),
    "truthing.step.answer": allow(Role.OPERATOR),
    "truthing.step.undo": allow(Role.OPERATOR),
    "truthing.stream.leave": allow(Role.OPERATOR),
    "truthing.check.read": allow(Role.OPERATOR),
    "truthing.check.answer": allow(Role.OPERATOR),
    "truthing.check.undo": allow(Role.OPERATOR),
    "truthing.check.leave": allow(Role.OPERATOR),
    "truthing.disagreement.list": allow(Role.REVIEWER),
    "truthing.disagreement.decide": allow(Role.REVIEWER),
    "truthing.operators.statistics": allow(),
    # evaluation: owners register vision systems and run them on published tests; a system sees only its
    # own sessions (evaluation.selectors.access_*). Everyone may read the leaderboards and the scores of
    # public systems (which of them, evaluation.selectors.systems_listed and streams_withheld say).
    "evaluation.system.list": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.system.create": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.system.read": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.system.scores": EVERYONE,
    "evaluation.system.token.create": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.test.list": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.session.list": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.session.create": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.session.read": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.question.read": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.answer.create": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.image.file": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.score.read": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.session.results": allow(Role.VISION_SYSTEM_OWNER),
    "evaluation.session.void": allow(),
    "evaluation.leaderboard.read": EVERYONE,
}

# Operations that queue a Celery task: with the broker down they answer 503 (Retry-After) instead of
# creating a job that would never run; everything else keeps working (issue 11, decision 0009).
QUEUEING_OPERATIONS = frozenset(
    {"import.create", "import.confirm", "statistics.create", "suggestions.preannotate"}
)

# What a token scoped to one vision system may do (decision 0030): take tests as that system, and read
# what any system may read, including the vocabularies: the words its questions are made of, public to
# everyone. Everything else (tokens, other systems, collections, images) is refused with 403.
SCOPED_TOKEN_OPERATIONS = frozenset(
    {
        "account.read",
        "vocabulary.list",
        "vocabulary.read",
        "evaluation.system.list",
        "evaluation.system.read",
        "evaluation.system.scores",
        "evaluation.test.list",
        "evaluation.session.list",
        "evaluation.session.create",
        "evaluation.session.read",
        "evaluation.question.read",
        "evaluation.answer.create",
        "evaluation.image.file",
        "evaluation.score.read",
        "evaluation.session.results",
        "evaluation.leaderboard.read",
    }
)


def roles_of(user: Any) -> frozenset[Role]:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return frozenset()
    names = getattr(user, "_vtt_role_names", None)
    if names is None:
        names = frozenset(user.groups.values_list("name", flat=True))
        user._vtt_role_names = names  # one query per request, not per check
    roles = {role for role in Role if role.value in names}
    if user.is_superuser:
        roles.add(Role.ADMIN)
    return frozenset(roles)


def roles_known(user: Any, names: frozenset[str]) -> None:
    """The user's role (group) names, read along with something else (accounts.selectors.token_with_roles),
    so that roles_of asks no query for them."""
    user._vtt_role_names = names


def may(user: Any, operation: str) -> bool:
    try:
        allowed = OPERATIONS[operation]
    except KeyError:
        raise LookupError(f"Operation {operation!r} is not listed in accounts.roles.OPERATIONS") from None
    return bool(roles_of(user) & allowed)


def may_as(user: Any, operation: str, granted: frozenset[Role]) -> bool:
    """May the user perform `operation` where only the `granted` roles apply (a collection membership
    grants one)? Both must allow it: the global role and the role held there. Admins may everywhere."""
    if is_admin(user):
        return True
    allowed = OPERATIONS[operation]
    if granted and allowed >= COLLECTION_WORKERS:
        # What every worker role may do (read the collection, its images, its export), any membership
        # grants; the global role still has to allow it.
        return bool(roles_of(user) & allowed)
    return bool(roles_of(user) & granted & allowed)


def is_admin(user: Any) -> bool:
    return Role.ADMIN in roles_of(user)
