"""The test card's "A test that ranks vision": the ranking check's report, its plot, and the blind
guessers beside it (the blind prior from the check, the learned one from the test's audit)."""

from __future__ import annotations

from typing import Any

from evaluation.selectors.ranking import ranking_check_of
from frontend.plots.degradation import FAMILY_NAMES, degradation_curves


def learned_guesser(audit: Any) -> dict[str, Any] | None:
    """The learned blind guesser's accuracy from a done audit, as a proportion with its interval."""
    if audit is None or audit.status != "done":
        return None
    guesser = audit.report.get("guesser") or {}
    if guesser.get("accuracy") is None:
        return None
    return {
        "value": guesser["accuracy"],
        "low": guesser.get("low"),
        "high": guesser.get("high"),
        "trials": audit.report.get("held_out_questions") or 0,
    }


def ranking_context(*, test_id: int, audit: Any) -> dict[str, Any]:
    check = ranking_check_of(test_id=test_id)
    if check is None or check.status != check.done_status:
        return {"ranking": check}
    report = check.report
    learned = learned_guesser(audit)
    blinds = [report["blind_prior"]["value"]] + ([learned["value"]] if learned else [])
    rows = [
        {
            "name": FAMILY_NAMES.get(name, name),
            "parameter": family["parameter"],
            "questions": family["questions"],
            "start": family["points"][0],
            "middle": family["points"][len(family["points"]) // 2],
            "end": family["points"][-1],
            "blind": family["blind_prior"],
            "monotone": family["monotone"],
            # Reports before DEGRADATION_VERSION 5 have no verdict; the beat recomputes them.
            "monotone_chance": family.get("monotone_chance"),
            "verdict": family.get("verdict"),
        }
        for name, family in report["families"].items()
    ]
    return {
        "ranking": check,
        "ranking_report": report,
        "ranking_rows": rows,
        "ranking_learned": learned,
        # What a perfect system gains over the best blind guesser this test knows.
        "seeing_minus_blind": 1.0 - max(blinds),
        "ranking_svg": degradation_curves(report, learned=learned["value"] if learned else None),
    }
