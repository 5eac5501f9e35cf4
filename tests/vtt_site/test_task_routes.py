"""The proposals queue and the beat name real tasks: a renamed task would otherwise be routed to a queue
nobody reads, or scheduled and never run, silently."""

from __future__ import annotations

from django.conf import settings

from vtt_site.celery import app


def test_every_routed_and_scheduled_task_exists():
    app.loader.import_default_modules()
    routed = set(settings.CELERY_TASK_ROUTES)
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert routed | scheduled <= set(app.tasks), (routed | scheduled) - set(app.tasks)
    # Every sweep goes with the proposals, never behind a long job.
    assert scheduled <= routed
    assert {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()} == {
        settings.CELERY_PROPOSAL_QUEUE
    }
