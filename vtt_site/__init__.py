"""Project package: settings, URLs, the Celery app and the API conventions shared by every app."""

from vtt_site.celery import app as celery_app

__all__ = ["celery_app"]
