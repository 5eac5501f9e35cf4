"""The Celery application. Without REDIS_URL every task runs eagerly in-process (see settings)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")

app = Celery("vtt_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
