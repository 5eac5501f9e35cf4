"""Storing a session's score, and keeping stored scores current.

A score is a pure function of the session's plan and stored answers (scoring.scores), so storing it is
idempotent and it can be recomputed at any time. Each stored score carries the SCORING_VERSION that made
it: when the scoring core changes, the beat recomputes the scores of older versions
(`scores_due_queue`), so no row keeps figures of a scoring that is gone.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from evaluation.models import Score, Session, SessionState
from evaluation.queues import SCORE_SESSION
from evaluation.selectors.plans import session_dealt
from evaluation.selectors.scores import session_score
from scoring.scores import SCORING_VERSION

SCORED_STATES = (SessionState.FINISHED, SessionState.EXPIRED)


@transaction.atomic
def score_store(*, session_id: int) -> Score | None:
    """Compute and store the score of a session that is over (idempotent: a second run rewrites the same
    figures), with the version of the scoring that made it."""
    session = Session.objects.select_for_update().get(pk=session_id)
    # A session closed by its deadline while its deal was still generating is scored once every
    # stream is dealt (its unanswered questions count): the beat queues it again until then.
    if session.state not in SCORED_STATES or not session_dealt(session):
        return None
    data = session_score(session=session)
    score, _ = Score.objects.update_or_create(
        session=session,
        defaults={
            "accuracy": data["accuracy"]["value"],
            "data": data,
            "version": SCORING_VERSION,
            "computed_at": timezone.now(),
        },
    )
    return score


def scoring_queue(session_id: int) -> bool:
    """Hand the scoring of an ended session to the broker. Never raises: with the broker down the
    answer that ended the session is stored all the same, and `scores_due_queue` queues it later."""
    return SCORE_SESSION.send(session_id, what=f"the scoring of session {session_id}")


def scores_due_queue(*, limit: int = 100) -> int:
    """Queue the scoring of the sessions whose stored score is missing or stale; how many (a periodic
    task). Missing: the session ended (finished or expired) more than EVALUATION_SCORE_GRACE_SECONDS
    ago and has no score, so its task was lost (the broker was down when it ended, or a worker died
    with the message); one that was only slow is scored twice to the same figures. Stale: its score was
    made by another SCORING_VERSION. The oldest first, at most `limit` a run."""
    ended_before = timezone.now() - timedelta(seconds=settings.EVALUATION_SCORE_GRACE_SECONDS)
    due = Session.objects.filter(state__in=SCORED_STATES).filter(
        Q(score__isnull=True, ended_at__lte=ended_before)
        | (Q(score__isnull=False) & ~Q(score__version=SCORING_VERSION))
    )
    pks = due.order_by("ended_at", "pk").values_list("pk", flat=True)[:limit]
    return sum(scoring_queue(pk) for pk in pks)
