"""What the test card reads of a test's ranking check (evaluation.services.degradation)."""

from __future__ import annotations

from evaluation.models import RankingCheck
from scoring.degradation import DEGRADATION_VERSION
from scoring.scores import SCORING_VERSION
from vtt_site.job_model import JobStatus

# A check is current when it was made by today's scoring and simulation.
RANKING_VERSION = f"{SCORING_VERSION}.{DEGRADATION_VERSION}"


def ranking_check_of(*, test_id: int) -> RankingCheck | None:
    return RankingCheck.objects.filter(test_id=test_id).first()


def ranking_check_current(*, test_id: int) -> bool:
    """Whether the test's check is done with today's scoring and simulation (else it is due)."""
    return RankingCheck.objects.filter(
        test_id=test_id, version=RANKING_VERSION, status=JobStatus.DONE
    ).exists()
