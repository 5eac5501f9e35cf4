"""The Celery application. Without REDIS_URL every task runs eagerly in-process (see settings)."""

import os

from celery import Celery

from vtt_site.queueing import beat_schedule, queue_names, task_routes

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")

app = Celery("vtt_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The beat's options (vtt_site/settings.py) as RedBeat looks for them: under their own names. Behind the
# CELERY_ prefix it still reads them, but believes them unset, warns and falls back to the broker's.
REDBEAT_OPTIONS = ("redbeat_redis_url", "redbeat_redis_options", "redbeat_key_prefix", "redbeat_lock_timeout")


@app.on_after_configure.connect
def _name_beat_options(sender, source, **kwargs) -> None:
    source.update({name: source.first(name) for name in REDBEAT_OPTIONS})


@app.on_after_configure.connect
def _routes_and_schedule(sender, source, **kwargs) -> None:
    """The routes and the beat's schedule, from the apps' declarations (vtt_site.queueing)."""
    from django.conf import settings

    source.update(
        task_routes=task_routes(
            queue_names(
                settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_PROPOSAL_QUEUE, settings.CELERY_DEAL_QUEUE
            )
        ),
        beat_schedule=beat_schedule(),
    )


def queues_use(queue: str, proposal_queue: str, deal_queue: str | None = None) -> None:
    """Send this process's tasks to these queues instead of the settings' (the tests and benchmarks run
    workers on queues of their own; the deals go to `deal_queue`, by default QUEUE-deals). The app
    caches its queues, routes and router at the first send, so all three are dropped and recomputed
    from the new names. The app is configured first: configured later (on its first read of a setting),
    its `_routes_and_schedule` would put the settings' routes back over these, and a benchmark's deals
    went to the settings' queue, where its dealer never saw them."""
    app.conf.task_routes  # noqa: B018  (reading a setting configures the app)
    app.conf.task_default_queue = queue
    app.conf.task_routes = task_routes(queue_names(queue, proposal_queue, deal_queue or f"{queue}-deals"))
    for cached in ("queues", "default_queue", "router"):
        app.amqp.__dict__.pop(cached, None)
    app.amqp.flush_routes()
