"""What the test card reads of a test's ranking check (evaluation.services.degradation)."""

from __future__ import annotations

from evaluation.models import RankingCheck


def ranking_check_of(*, test_id: int) -> RankingCheck | None:
    return RankingCheck.objects.filter(test_id=test_id).first()
