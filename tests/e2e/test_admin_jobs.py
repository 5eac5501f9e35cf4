"""The admin's pages of a job follow it while it runs (issue 20: pages that show a job refresh themselves
until it ends): a queued fit's list page reloads itself, and stops once the fit is ready."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from engine.models import FittedStatistics
from tests.e2e.conftest import login
from tests.factories import VocabularyFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_fit_list_follows_a_running_fit_until_it_is_ready(users, new_page):
    fit = FittedStatistics.objects.create(vocabulary=VocabularyFactory(), status="fitting", progress=0.3)
    page = new_page()
    login(page, users[Role.ADMIN])
    page.goto("/admin/engine/fittedstatistics/")
    assert page.locator("[data-refresh-seconds]").count() == 1
    FittedStatistics.objects.filter(pk=fit.pk).update(status="ready", progress=1.0)
    with page.expect_event("load", timeout=10_000):
        pass  # the page reloads by itself
    page.wait_for_load_state()
    assert page.locator("[data-refresh-seconds]").count() == 0
    assert "ready" in page.locator("#result_list").inner_text().lower()
