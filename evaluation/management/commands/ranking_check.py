"""Run a test's ranking check now, in this process, and print its curves (docs/benchmarks.md).

    manage.py ranking_check --test 2

The same job the beat queues (evaluation.services.degradation): the report is stored on the test's row
and shown on its card.
"""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db import transaction

from evaluation.services.degradation import ranking_check_reset, ranking_check_run
from truthing.published import frozen_test_get
from vtt_site.commands import PlatformCommand
from vtt_site.job_model import JobStatus


def _chance(chance: float | None) -> str:
    """How often a right p's curve would fall at every step (only for a curve that does not)."""
    return "\u2013" if chance is None else f"{chance:.2f}"


def _ranks(ranks: bool | None) -> str:
    if ranks is None:
        return "not judged (a report from before the rulings of issue 34)"
    return "yes, every curve" if ranks else "no (see each curve's verdict)"


def interval(p: dict) -> str:
    return f"{p['value']:.3f} [{p['low']:.3f}, {p['high']:.3f}]"


class Command(PlatformCommand):
    help = "Run the ranking check of a published test now and print its curves."

    def add_arguments(self, parser):
        parser.add_argument("--test", type=int, required=True, help="A published or archived test's id.")

    def handle(self, *args, test: int, **options):
        if frozen_test_get(test_id=test) is None:
            raise CommandError(f"There is no published or archived test {test}.")
        with transaction.atomic():
            check = ranking_check_reset(test_id=test)
        check = ranking_check_run(job_id=check.pk)
        if check.status != JobStatus.DONE:
            raise CommandError(f"The ranking check failed: {check.message}")
        self.stdout.write(self.report(check.report))

    @staticmethod
    def report(report: dict) -> str:
        families = report["families"]
        names = list(families)
        head = "| degradation | " + " | ".join(
            f"{name} ({families[name]['parameter']}, {families[name]['questions']} questions)"
            for name in names
        )
        lines = [head + " |", "|---" * (len(names) + 1) + "|"]
        for i, level in enumerate(report["levels"]):
            cells = [interval(families[name]["points"][i]) for name in names]
            lines.append(f"| {level:.1f} | " + " | ".join(cells) + " |")
        lines.append(
            "| blind prior on them | "
            + " | ".join(interval(families[n]["blind_prior"]) for n in names)
            + " |"
        )
        lines.append(
            "| falls monotonically | "
            + " | ".join(str(families[n]["monotone"]).lower() for n in names)
            + " |"
        )
        lines.append(
            "| a right p falls at every step | "
            + " | ".join(_chance(families[n].get("monotone_chance")) for n in names)
            + " |"
        )
        lines.append(
            "| verdict | "
            + " | ".join(families[n].get("verdict", {}).get("wording", "\u2013") for n in names)
            + " |"
        )
        power = report["power"] or {}
        lines += [
            "",
            f"Blind prior on the whole test: {interval(report['blind_prior'])}.",
            f"Ranks vision: {_ranks(report.get('ranks_vision'))}.",
            f"Streams to tell apart two systems 0.05 apart (power 0.8, two-sided 0.05): {power.get('streams')} "
            f"(the median over {power.get('draws')} pairs of simulated systems, whose figures ran from "
            f"{' to '.join(str(n) for n in power.get('range') or [])}; the median pair at "
            f"{', '.join(f'{a:.3f}' for a in power.get('accuracies', []))}; "
            f"{power.get('test_streams')} streams of {power.get('questions_per_stream', 0):.1f} questions).",
        ]
        return "\n".join(lines)
