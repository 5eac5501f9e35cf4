"""Each worker's test database cloned from one migrated template, on PostgreSQL (issue 47, item 9).

pytest-django creates a test database per xdist worker and runs every migration in it: 12.5 s of CPU per
worker, three times at the start of `make test`, while the checks and the Django-free tests want the same
two cores. Here the migrations run once, into a template database named after a fingerprint of every
migration file, and each worker's database is made from it with PostgreSQL's `CREATE DATABASE … TEMPLATE`
(Django's `TEST['TEMPLATE']`); Django's migrate then finds nothing left to apply. A template whose
fingerprint is current is reused from run to run; one left by other migrations is dropped when a new one
is built. On SQLite nothing changes.

Loaded by tests/conftest.py with pytest-django.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[1]
# The advisory lock the workers take to build the template one at a time (any fixed number of our own).
TEMPLATE_LOCK = 0x7674745F7470  # "vtt_tp"


def migrations_fingerprint() -> str:
    """What the template's schema depends on: every migration file of the project, and Django's version
    (its own apps' migrations)."""
    import django

    digest = hashlib.sha256(django.get_version().encode())
    for path in sorted(ROOT.glob("*/migrations/*.py")):
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def template_name(database_name: str) -> str:
    return f"test_{database_name}_template_{migrations_fingerprint()}"


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """pytest-django's hook before the test databases are made: point them at the template."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.postgresql":
        return
    name = template_name(database["NAME"])  # the worker's suffix is on TEST's NAME, not on NAME
    ensure_template(database, name)
    database.setdefault("TEST", {})["TEMPLATE"] = name


def ensure_template(database: dict, name: str) -> None:
    """The migrated template `name`, built once whichever worker comes first (the others wait on the
    lock and find it built). It is built under another name and renamed when complete, so a run killed
    while migrating leaves no template that looks whole."""
    with psycopg.connect(**maintenance_params(database), autocommit=True) as connection:
        connection.execute("SELECT pg_advisory_lock(%s)", [TEMPLATE_LOCK])
        try:
            if not _exists(connection, name):
                _drop_stale_templates(connection, name)
                building = f"{name}_building"
                connection.execute(f'DROP DATABASE IF EXISTS "{building}"')
                connection.execute(f'CREATE DATABASE "{building}"')
                _migrate(building)
                connection.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
        finally:
            connection.execute("SELECT pg_advisory_unlock(%s)", [TEMPLATE_LOCK])


def maintenance_params(database: dict) -> dict:
    params = {"dbname": "postgres", "user": database.get("USER") or None}
    for key, param in (("HOST", "host"), ("PORT", "port"), ("PASSWORD", "password")):
        if database.get(key):
            params[param] = str(database[key])
    return {key: value for key, value in params.items() if value is not None}


def _exists(connection, name: str) -> bool:
    return connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


def _drop_stale_templates(connection, current: str) -> None:
    """Templates of earlier migrations: each is a whole database, and nothing will clone it again."""
    prefix = current.rsplit("_", 1)[0] + "_"
    rows = connection.execute(
        "SELECT datname FROM pg_database WHERE starts_with(datname, %s) AND datname <> %s", [prefix, current]
    ).fetchall()
    for (stale,) in rows:
        with contextlib.suppress(psycopg.errors.ObjectInUse):  # another run is cloning it right now
            connection.execute(f'DROP DATABASE IF EXISTS "{stale}"')


def _migrate(name: str) -> None:
    """The project's migrations into database `name`, by `manage.py migrate` in a process of its own (this
    one's connections stay on the worker's database), on DATABASE_URL's server."""
    from django.conf import settings

    url = urlsplit(settings.DATABASE_URL)._replace(path=f"/{name}")
    env = {**os.environ, "DATABASE_URL": urlunsplit(url)}
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
