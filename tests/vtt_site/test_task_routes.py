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
    # Every sweep goes with the proposals, and the deals to their own queue: never behind a long job.
    assert scheduled <= routed
    queue_of = {name: route["queue"] for name, route in settings.CELERY_TASK_ROUTES.items()}
    assert {queue_of[name] for name in scheduled} == {settings.CELERY_PROPOSAL_QUEUE}
    assert queue_of["truthing.stream_propose"] == settings.CELERY_PROPOSAL_QUEUE
    assert queue_of["truthing.deal_run"] == settings.CELERY_DEAL_QUEUE
    assert (
        len({settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_PROPOSAL_QUEUE, settings.CELERY_DEAL_QUEUE})
        == 3
    )
