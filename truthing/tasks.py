"""Celery tasks: take ids, call one service, own the retry policy. None yet."""
