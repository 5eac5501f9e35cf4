"""Selectors for reports: a test's card (what a test author shows reviewers) and operators' statistics.

The card's figures come from the stored steps alone. "Blind accuracy" is what a guesser that sees only
the history and the training statistics would get: it answers yes exactly when the engine's p for the
question was above 0.5 (docs/method.md section 8); near 0.5 is the point of the test.
"""

from __future__ import annotations

import statistics as stats
from collections import Counter, defaultdict
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models.fields.json import KT

from kernel.kinds import KINDS
from scoring.stats import proportion
from truthing.models import (
    AutomaticTruthing,
    CheckAnswer,
    CheckKind,
    Deal,
    Step,
    StepAnswer,
    Stream,
    Test,
    TestAudit,
    TruthingMode,
)
from truthing.published.pools import dealable_pool, dealt_streams_count, pool_exposure


def card_of_test(*, test: Test) -> dict[str, Any]:
    # The test's own streams: the ones generated for one session's deal are that session's.
    # The kind as text (->>): as JSON (->) each of a 1,000-image test's 4,000 rows was decoded in Python.
    steps = list(
        Step.objects.of_pool_streams()
        .filter(stream__test_image__test=test)
        .exclude(answer="")
        .annotate(kind=KT("question__kind"))
        .values_list("stream_id", "kind", "answer", "p")
    )
    streams = list(
        Stream.objects.filter(test_image__test=test).values_list("id", "test_image__mode", "state")
    )
    lengths: dict[int, int] = {stream_id: 0 for stream_id, _, _ in streams}
    kinds: Counter[str] = Counter()
    yes = rejected = 0
    blind_right: Counter[str] = Counter()
    blind_total: Counter[str] = Counter()
    for stream_id, kind, answer, p in steps:
        if answer == StepAnswer.AMBIGUOUS:
            rejected += 1
            continue
        lengths[stream_id] += 1
        kinds[kind] += 1
        yes += answer == StepAnswer.YES
        if p is not None:
            for key in (kind, "all"):
                blind_total[key] += 1
                blind_right[key] += (p > 0.5) == (answer == StepAnswer.YES)
    answered = sum(lengths.values())
    length_values = sorted(lengths.values())
    return {
        "images": test.test_images.count(),
        "streams": len(streams),
        "streams_ended": sum(1 for _, _, state in streams if state == "ended"),
        "truthed_by": dict(Counter(mode for _, mode, _ in streams)),
        "answered": answered,
        "rejected": rejected,
        "rejected_share": rejected / (answered + rejected) if answered + rejected else None,
        "yes_rate": proportion(yes, answered),
        "kinds": {kind: kinds.get(kind, 0) for kind in KINDS},
        "stream_lengths": {
            "values": length_values,
            "mean": stats.fmean(length_values) if length_values else None,
            "median": stats.median(length_values) if length_values else None,
            "min": length_values[0] if length_values else None,
            "max": length_values[-1] if length_values else None,
        },
        "automatic_truthing": automatic_progress(test),
        "dealing": dealing_summary(test),
        "audit": audit_summary(test),
        "blind_accuracy": proportion(blind_right["all"], blind_total["all"]),
        "blind_accuracy_by_kind": {
            kind: proportion(blind_right[kind], blind_total[kind]) for kind in KINDS if blind_total[kind]
        },
    }


def operator_statistics() -> list[dict[str, Any]]:
    """Per operator: answers given, median seconds per answer, agreement with checkers (on their
    streams that a second operator checked) and accuracy on gold work, with 95% Wilson intervals."""
    answers: dict[int, list[float | None]] = defaultdict(list)
    for user_id, seconds in Step.objects.filter(answered_by__isnull=False, automatic=False).values_list(
        "answered_by_id", "seconds"
    ):
        answers[user_id].append(seconds)
    agreement: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    gold: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    checked = CheckAnswer.objects.values_list(
        "check_pass__kind",
        "check_pass__checker_id",
        "step__answered_by_id",
        "step__answer",
        "answer",
        "seconds",
    )
    for kind, checker_id, first_id, stored, given, seconds in checked:
        if kind == CheckKind.SECOND_OPINION and first_id is not None:
            agreement[first_id][0] += stored == given
            agreement[first_id][1] += 1
        if kind == CheckKind.GOLD and checker_id is not None:
            gold[checker_id][0] += stored == given
            gold[checker_id][1] += 1
        if checker_id is not None:
            answers[checker_id].append(seconds)
    users = get_user_model().objects.filter(pk__in=set(answers) | set(agreement) | set(gold))
    rows = []
    for user in users.order_by("username"):
        timed = [s for s in answers.get(user.pk, []) if s is not None]
        rows.append(
            {
                "operator": user.username,
                "answers": len(answers.get(user.pk, [])),
                "median_seconds": stats.median(timed) if timed else None,
                "agreement_with_checkers": proportion(*agreement[user.pk])
                if user.pk in agreement
                else proportion(0, 0),
                "gold_accuracy": proportion(*gold[user.pk]) if user.pk in gold else proportion(0, 0),
            }
        )
    return rows


def automatic_progress(test: Test) -> dict[str, Any] | None:
    """The oracle's jobs on the test, summed for the card and the API; None when no image is truthed by
    it. The status is the least advanced part's (failed wins: its message says why)."""
    jobs = list(AutomaticTruthing.objects.filter(test=test).order_by("part"))
    if not jobs:
        return None
    order = ["failed", "queued", "truthing", "done"]
    status = min((job.status for job in jobs), key=order.index)
    total = sum(job.streams_total for job in jobs)
    done = sum(job.streams_done for job in jobs)
    return {
        "status": status,
        "progress": done / total if total else (1.0 if status == "done" else 0.0),
        "streams_done": done,
        "streams_total": total,
        "message": " ".join(job.message for job in jobs if job.message),
    }


def dealing_summary(test: Test) -> dict[str, Any]:
    """How the test was dealt to sessions: how many were dealt, and each operator-truthed image's pool
    with each stream's exposure (how many sessions were dealt it) and whether it may be dealt yet."""
    dealable = set(
        dealable_pool(list(test.test_images.values_list("pk", flat=True))).values_list("pk", flat=True)
    )
    pooled = Stream.objects.filter(test_image__test=test, test_image__mode=TruthingMode.OPERATOR)
    streams = list(
        pooled.order_by("test_image__position", "number").values_list(
            "pk", "number", "test_image__position", "test_image__image__original_name", "state"
        )
    )
    # The streams as a subquery, not a list of 1,000 ids sent back to the database.
    exposure = pool_exposure(pooled.values("pk"))
    pools: dict[int, dict[str, Any]] = {}
    for pk, number, position, name, state in streams:
        pool = pools.setdefault(position, {"position": position, "image": name, "streams": []})
        pool["streams"].append(
            {"number": number, "state": state, "dealable": pk in dealable, "exposure": exposure[pk]}
        )
    return {
        "sessions": Deal.objects.filter(test=test).count(),
        "generated": dealt_streams_count(test.pk),
        "pools": list(pools.values()),
    }


def audit_summary(test: Test) -> dict[str, Any] | None:
    """The independent audit's state and report (engine.audit), None when the test was never audited."""
    audit = TestAudit.objects.filter(test=test).first()
    if audit is None:
        return None
    return {
        "status": audit.status,
        "progress": audit.progress,
        "message": audit.message,
        "report": audit.report,
    }
