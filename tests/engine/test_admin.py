"""Starting a fit from the Django admin, and what the admin shows of one."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from engine.models import FitStatus, FittedStatistics
from tests.factories import CollectionFactory

pytestmark = pytest.mark.django_db

ADD = "/admin/engine/fittedstatistics/add/"


def test_an_admin_starts_a_fit_from_the_admin(
    client, make_user, trained_collection, django_capture_on_commit_callbacks
):
    client.force_login(make_user(Role.ADMIN))
    assert client.get(ADD).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(ADD, {"collections": [trained_collection.pk], "min_overlap": "0.2"})
    assert response.status_code == 302
    statistics = FittedStatistics.objects.get()
    assert statistics.status == FitStatus.READY and statistics.settings["min_overlap"] == 0.2
    # The list shows the row ready; the message above it claims no stale status or count.
    listing = client.get(response["Location"]).content.decode()
    training = statistics.training_images.count()
    assert (
        f"Fit {statistics.pk} asked for on {training} training images; its row shows how far it is."
        in listing
    )
    assert "was added successfully" not in listing and "(queued, 0 images)" not in listing
    page = client.get(f"/admin/engine/fittedstatistics/{statistics.pk}/change/")
    assert page.status_code == 200 and b"Save" not in page.content  # a fit is a record: view only
    html = page.content.decode()
    # The summary is a table of counts and per-type attribute shares, not raw JSON.
    assert "<table class='fit-summary'>" in html or '<table class="fit-summary">' in html
    assert f"<th scope='row'>images</th><td>{statistics.n_images}</td>" in html.replace('"', "'")
    person = statistics.summary["types"]["person"]
    assert f"<th scope='row'>person</th><td>{person['objects']}</td>" in html.replace('"', "'")
    assert "&quot;attribute_frequencies&quot;" not in html and '"attribute_frequencies"' not in html


def test_the_admin_form_says_why_a_fit_cannot_be_made(client, make_user, trained_collection):
    client.force_login(make_user(Role.ADMIN))
    empty = CollectionFactory(vocabulary=trained_collection.vocabulary)
    response = client.post(ADD, {"collections": [empty.pk]})
    assert response.status_code == 200
    assert b"no reviewed training images yet" in response.content
    assert not FittedStatistics.objects.exists()


def test_a_fit_past_the_admins_limit_is_refused_on_the_add_page(
    client, make_user, trained_collection, settings
):
    settings.JOBS_MAX_PER_USER = 1
    admin = make_user(Role.ADMIN)
    FittedStatistics.objects.create(vocabulary=trained_collection.vocabulary, created_by=admin)  # queued
    client.force_login(admin)
    response = client.post(ADD, {"collections": [trained_collection.pk]})
    assert response.status_code == 200  # the form again, with the reason
    assert "You already have 1 fits waiting or running" in response.content.decode()
    assert FittedStatistics.objects.count() == 1
