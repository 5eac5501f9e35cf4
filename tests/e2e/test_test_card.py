"""The test card as an admin reads it (issue 20, admin items): Publish is disabled with its reason while
the test cannot be published, the audit is a section of its own after the card's plots and its
reliability diagram is drawn like them, the card lists its streams, a test that does not exist says so;
and under `make run` (tasks in threads) a job runs outside the request while the card follows it."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from accounts.roles import Role
from engine.audit.run import reliability
from tests.e2e.conftest import login, shot
from truthing.models import TestAudit
from truthing.services import automatic, lifecycle
from vtt_site.job_model import JobStatus

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def audit_report() -> dict:
    """A report shaped as the audit job leaves it (its reliability from engine.audit's own function)."""
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 1, 400)
    answers = rng.uniform(0, 1, 400) < p
    accuracy = {"accuracy": 0.55, "low": 0.5, "high": 0.6, "n": 400}
    return {
        "model": "logistic-regression",
        "training_streams": 50,
        "held_out_questions": 400,
        "guesser": accuracy,
        "engine_p": accuracy,
        "reliability": reliability(p, answers),
    }


def done_audit(test) -> None:
    TestAudit.objects.create(test=test, status=JobStatus.DONE, report=audit_report())


def box(page, selector):
    return page.locator(selector).first.bounding_box()


def test_the_card_of_a_test_in_truthing(
    annotated_test_images, unannotated_test_images, make_test, users, new_page
):
    test = make_test([*annotated_test_images[:3], unannotated_test_images[0]], name="Card test")
    lifecycle.start_test(test=test)  # the oracle truths three streams at once (eager tasks)
    done_audit(test)
    page = new_page()
    login(page, users[Role.ADMIN])
    page.goto(f"/tests/{test.pk}/")

    publish = page.get_by_test_id("publish")
    assert publish.is_disabled()
    assert page.get_by_test_id("publish-reason").is_visible()
    reason = page.locator("#" + publish.get_attribute("aria-describedby"))
    assert "1 stream has not ended" in reason.inner_text()

    # The audit comes after the card's plots, not between its table and them.
    assert box(page, "[data-testid=audit-report]")["y"] > box(page, "[data-testid=plot-blind]")["y"]
    assert page.locator("[data-testid=card] [data-testid=audit-report]").count() == 0
    # Its diagram is one of the site's plots: same class, same type size as the card's.
    reliability_svg = page.locator("[data-testid=plot-reliability] svg.plot")
    assert reliability_svg.is_visible() and reliability_svg.locator("circle.plot-dot").count() >= 5
    size = "el => getComputedStyle(el).fontSize"
    assert reliability_svg.locator(".plot-label").first.evaluate(size) == page.locator(
        "[data-testid=plot-kinds] .plot-label"
    ).first.evaluate(size)
    ratio = "el => el.getBoundingClientRect().width / el.viewBox.baseVal.width"
    kinds_svg = page.locator("[data-testid=plot-kinds] svg.plot")
    assert abs(reliability_svg.evaluate(ratio) / kinds_svg.evaluate(ratio) - 1) < 0.15  # drawn as large

    streams = page.get_by_test_id("streams")
    assert streams.locator("tbody tr").count() == 4
    assert annotated_test_images[0].original_name in streams.inner_text()
    assert "by the oracle" in streams.inner_text() and "waiting for an answer" in streams.inner_text()
    shot(page, "card-truthing")

    page.goto("/tests/999999/")
    text = page.get_by_test_id("error-page").inner_text()
    assert "There is no test 999999" in text and "not a member" not in text


@pytest.fixture
def held_automatic_truthing(monkeypatch, settings):
    """Tasks run in threads, as under `make run`; the automatic truthing waits until released."""
    settings.TASKS_IN_THREADS = True
    release, started = threading.Event(), threading.Event()
    real = automatic.automatic_truthing_run

    def held(*, job_id):
        started.set()
        release.wait(30)
        return real(job_id=job_id)

    monkeypatch.setattr(automatic, "automatic_truthing_run", held)
    yield started, release
    release.set()


def test_starting_truthing_answers_at_once_and_the_card_follows_the_job(
    annotated_test_images, make_test, users, new_page, held_automatic_truthing
):
    started, release = held_automatic_truthing
    test = make_test(annotated_test_images[:3], name="Threaded test")
    page = new_page()
    login(page, users[Role.ADMIN])
    page.goto(f"/tests/{test.pk}/")
    page.get_by_test_id("start").click()
    page.wait_for_url(f"**/tests/{test.pk}/")
    assert "Truthing started." in page.inner_text(".messages")
    assert started.wait(10), "the job did not start"
    # The request answered while the job still runs; the card says so and follows it.
    assert "this page follows it" in page.get_by_test_id("automatic-progress").inner_text()
    assert page.get_by_test_id("job-running").count() == 1
    shot(page, "card-job-running")
    release.set()
    page.get_by_text("3 of 3 oracle-truthed streams ended").wait_for(timeout=20_000)
    assert page.get_by_test_id("job-running").count() == 0


def test_a_running_audit_shows_its_progress_and_the_card_follows_it(
    annotated_test_images, make_test, users, new_page
):
    test = make_test(annotated_test_images[:2], name="Audited test")
    lifecycle.start_test(test=test)
    audit = TestAudit.objects.create(test=test, status=TestAudit.running_statuses[0], progress=0.4)
    page = new_page()
    login(page, users[Role.ADMIN])
    page.goto(f"/tests/{test.pk}/")
    assert "The audit is running" in page.get_by_test_id("audit-progress").inner_text()
    assert page.locator("[data-testid=audit-progress] progress").get_attribute("value") == "0.4"
    TestAudit.objects.filter(pk=audit.pk).update(status=JobStatus.DONE, progress=1.0, report=audit_report())
    page.locator("[data-testid=plot-reliability] svg").wait_for(timeout=15_000)  # reloaded by itself
    assert page.get_by_test_id("job-running").count() == 0
