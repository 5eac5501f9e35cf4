"""`manage.py demo_setup`: what `make run` loads."""

import logging
import time

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.db import transaction

from demo.baseline_runs import BLIND, baselines_run
from demo.crowd import demo_crowd_ensure
from demo.services import DemoTests, demo_collection_ensure, demo_tests_ensure, demo_users_ensure
from engine.models import FitStatus
from engine.services import statistics_current_ensure
from evaluation.selectors.ranking import ranking_check_current
from evaluation.services.degradation import ranking_check_reset, ranking_check_run
from truthing.models import TestState
from vtt_site.commands import PlatformCommand


def demo_tests_said(tests: DemoTests, url: str) -> str:
    """What the start message says of the demo tests. The operator test is only said to need truthing
    while it does (issue 46: once published, every start still asked to truth it)."""
    operator = tests.truthing
    if operator.state == TestState.TRUTHING:
        todo = "log in as operator, Truthing, Take next"
    else:
        todo = f"its card is at {url}tests/{operator.pk}/"
    said = (
        f"Tests: {tests.published.name!r} ({tests.published.state}: its card is at "
        f"{url}tests/{tests.published.pk}/), {tests.practice.name!r} (a practice test, "
        f"{tests.practice.state}: a new vision-system owner tries their code on test_id "
        f"{tests.practice.pk} first) and {operator.name!r} ({operator.state}: {todo})."
    )
    checked = tests.checked
    if checked is not None and checked.state == TestState.TRUTHING:
        said += (
            f" {checked.name!r} is being checked: the operator queue gives operator a stream to check and a "
            "gold check first; reviewer decides its disagreement under Adjudication; admin sees agreement and "
            "gold on Operators."
        )
    return said


class Command(PlatformCommand):
    help = (
        "Load the demo: the default vocabulary, one user per role (passwords kept in "
        "VAR_DIR/demo-credentials.json), a collection of synthetic street scenes, and engine statistics "
        "fitted on its reviewed training images, and three tests: one published (truthed by the oracle), a "
        "practice test, one waiting for the demo operator; the blind baselines take the published one, so its leaderboard "
        "has rows. Safe to run again."
    )

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="Where the site is served.")
        parser.add_argument(
            "--no-baselines",
            dest="baselines",
            action="store_false",
            help="Do not run the blind baselines on the published demo test.",
        )

    def handle(self, *args, url: str, baselines: bool = True, **options):
        # Each task (a proposal of the demo's checks, a baseline's answer) and each request would log a
        # line: 74 of them buried the summary a newcomer reads.
        for noisy in ("httpx", "celery.app.trace"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
        started = time.monotonic()
        credentials = settings.VAR_DIR / "demo-credentials.json"
        users = demo_users_ensure(credentials=credentials)
        collection = demo_collection_ensure(users=users)
        crowd = demo_crowd_ensure(
            people={
                u.username: get_user_model().objects.get(username=u.username)
                for u in users
                if u.username in ("annotator", "reviewer", "admin")
            }
        )
        statistics = statistics_current_ensure(collection=collection)
        statistics.refresh_from_db()
        if statistics.status == FitStatus.FAILED:
            raise CommandError(f"Fitting the demo statistics failed: {statistics.message}")
        tests = None
        if statistics.status == FitStatus.READY:
            tests = demo_tests_ensure(collection=collection, statistics=statistics)
        self.stdout.write(
            f"Demo ready in {time.monotonic() - started:.1f} s: collection {collection.name!r} "
            f"(id {collection.pk}) with {collection.images.count()} images; engine statistics "
            f"{statistics.pk} {statistics.status} on {statistics.training_images.count()} training images."
        )
        if tests is None:
            self.stdout.write("The demo tests are made once the statistics are fitted: run this again then.")
        else:
            self.stdout.write(demo_tests_said(tests, url))
            if tests.note:
                self.stdout.write(tests.note)
            if baselines and tests.published.state == TestState.PUBLISHED:
                self._baselines(tests.published, url)
                self._ranking_check(tests.published)
        self.stdout.write(
            f"The crowd collection {crowd.name!r} (id {crowd.pk}): three annotators per image, merges to review "
            "and the annotators' quality on its page."
        )
        self.stdout.write(f"Open {url} and log in as one of (passwords are also in {credentials}):")
        for user in users:
            self.stdout.write(f"  {user.username:<14} {user.role.value:<20} {user.password}")

    def _ranking_check(self, test) -> None:
        """The card's "A test that ranks vision": `make serve`'s beat checks every published test, but
        `make run` has no beat, so the demo checks its published test here (a few seconds; kept when
        current)."""
        if ranking_check_current(test_id=test.pk):
            return
        started = time.monotonic()
        with transaction.atomic():
            check = ranking_check_reset(test_id=test.pk)
        check = ranking_check_run(job_id=check.pk)
        why = f" ({check.message})" if check.message else ""
        self.stdout.write(
            f"Ranking check of {test.name!r}: {check.status}{why} in {time.monotonic() - started:.1f} s."
        )

    def _baselines(self, test, url: str) -> None:
        """The three blind baselines take the published demo test through the API (a few seconds; a
        second run finds them done), so that its leaderboard is not empty. The seeing baseline learns
        from pixels for minutes: `manage.py run_baselines` runs it."""
        started = time.monotonic()
        self.stdout.write(
            f"Blind baselines on {test.name!r} (its leaderboard: {url}leaderboards/{test.pk}/):"
        )
        baselines_run(test=test, names=BLIND, say=self.stdout.write)
        self.stdout.write(f"  done in {time.monotonic() - started:.1f} s.")
