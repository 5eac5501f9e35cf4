"""The base of every management command of the platform: it ends in a message, never a traceback
(decision 0070).

A command raises `CommandError` for what it knows how to say; everything else that can stop it is said
here, once, for every command: a service's refusal (`ApplicationError`, its message and the problems it
lists), a file that cannot be read or written, a database that cannot be reached or is not migrated,
Ctrl-C, and, last, an error nobody foresaw (a bug), which is named as one. Django prints the message and
exits non-zero; `--traceback` shows where it came from, since the original error is kept as the cause.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError

from vtt_site.errors import ApplicationError
from vtt_site.storage import (
    STORAGE_ERRORS,
    STORAGE_UNAVAILABLE,
    storage_refusal,
    storage_unavailable,
)

# The exit status of a command stopped by Ctrl-C, as a shell gives it (128 + SIGINT).
INTERRUPTED = 130


class PlatformCommand(BaseCommand):
    def execute(self, *args: Any, **options: Any) -> Any:
        try:
            return super().execute(*args, **options)
        except CommandError:
            raise
        except KeyboardInterrupt as exc:
            raise CommandError("Interrupted.", returncode=INTERRUPTED) from exc
        except Exception as exc:
            raise CommandError(failure_message(exc)) from exc


def failure_message(exc: Exception) -> str:
    """What a person reads when a command stops on `exc`."""
    if isinstance(exc, ApplicationError):
        problems = [p for problems in exc.fields.values() for p in problems if p != exc.message]
        return "\n  ".join([exc.message, *problems])
    if storage_unavailable(exc):
        return f"{STORAGE_UNAVAILABLE} Check S3_ENDPOINT_URL and S3_TIMEOUT_SECONDS."
    if isinstance(exc, STORAGE_ERRORS):
        return f"The file store refused: {storage_refusal(exc)}. Check S3_BUCKET and the credentials."
    if isinstance(exc, OSError):
        what = f"{exc.filename}: " if exc.filename else ""
        return f"{what}{exc.strerror or exc}"
    if isinstance(exc, DatabaseError):
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"The database refused: {first}. Check DATABASE_URL, and that `manage.py migrate` has run."
    return (
        f"Stopped on an unexpected error: {exc or type(exc).__name__}. This is a bug: run the command "
        "again with --traceback to see where, and report it."
    )
