"""The settings module on its embedded defaults and with DATABASE_URL / REDIS_URL (fresh processes)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, django; django.setup(); from django.conf import settings; "
    "from vtt_site.celery import app; "
    "print(json.dumps({'engine': settings.DATABASES['default']['ENGINE'], "
    "'name': str(settings.DATABASES['default']['NAME']), 'eager': app.conf.task_always_eager, "
    "'broker': app.conf.broker_url, 'acks_late': app.conf.task_acks_late, "
    "'prefetch': app.conf.worker_prefetch_multiplier, 'time_limit': app.conf.task_time_limit, "
    "'debug': settings.DEBUG}))"
)


def run_settings(**env: str) -> subprocess.CompletedProcess[str]:
    # Every variable the test cares about is set explicitly (empty means unset) so a developer's .env
    # cannot leak in: python-dotenv never overrides a variable that exists.
    base = {
        k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"}
    }
    full = base | {
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "DEBUG": "",
        "SECRET_KEY": "",
        "DJANGO_SETTINGS_MODULE": "vtt_site.settings",
    }
    full |= env
    return subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=full, capture_output=True, text=True)


def test_embedded_defaults_are_sqlite_in_the_project_folder_and_eager_tasks(tmp_path):
    result = run_settings(SECRET_KEY="x" * 50, VAR_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr
    probe = json.loads(result.stdout)
    assert probe["engine"] == "django.db.backends.sqlite3"
    assert probe["name"] == str(tmp_path / "vtt.sqlite3")
    assert probe["eager"] is True
    assert probe["debug"] is False


def test_default_var_dir_is_inside_the_project():
    result = run_settings(SECRET_KEY="x" * 50)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["name"] == str(ROOT / "var" / "vtt.sqlite3")


def test_database_and_redis_urls_switch_to_postgresql_and_a_real_broker():
    result = run_settings(
        SECRET_KEY="x" * 50,
        DATABASE_URL="postgres://u:p@db.example:5432/vtt",
        REDIS_URL="redis://cache:6379/3",
    )
    assert result.returncode == 0, result.stderr
    probe = json.loads(result.stdout)
    assert probe["engine"] == "django.db.backends.postgresql"
    assert probe["name"] == "vtt"
    assert probe["eager"] is False
    assert probe["broker"] == "redis://cache:6379/3"
    assert probe["acks_late"] is True
    assert probe["prefetch"] == 1
    assert probe["time_limit"] > 0


def test_secret_key_is_required_when_debug_is_off():
    result = run_settings()
    assert result.returncode != 0
    assert "SECRET_KEY is required when DEBUG is off" in result.stderr


def test_debug_runs_without_a_secret_key():
    result = run_settings(DEBUG="1")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["debug"] is True


def test_a_malformed_boolean_names_the_variable():
    result = run_settings(SECRET_KEY="x" * 50, DEBUG="perhaps")
    assert result.returncode != 0
    assert "DEBUG must be one of" in result.stderr


SIGNED_URL = (
    "import django; django.setup(); "
    "from annotations.suggestions.signing import signed_image_url; print(signed_image_url(1))"
)


def _served_environment(target: str, port: int) -> dict[str, str]:
    """The variables `make <target> PORT=port` gives the process that serves (read from `make -n`)."""
    printed = subprocess.run(
        ["make", "-n", "--no-print-directory", target, f"PORT={port}", "HOST=0.0.0.0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    [line] = [line for line in printed.splitlines() if "runserver" in line or "scripts/serve.sh" in line]
    return dict(re.findall(r"\b([A-Z_]+)=(\S+)", line.split("manage.py")[0].split("scripts/serve.sh")[0]))


def _signed_url(extra: dict[str, str]) -> str:
    # SITE_URL empty, as a fresh clone's .env has it (a .env made before it followed the port names 8000).
    env = {k: v for k, v in os.environ.items() if k != "SERVED_URL"} | {"SITE_URL": ""} | extra
    env["DJANGO_SETTINGS_MODULE"] = "vtt_site.settings"
    done = subprocess.run(
        [sys.executable, "-c", SIGNED_URL], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.slow
def test_make_run_and_make_serve_sign_image_urls_for_the_port_they_serve():
    """Issue 46, item 2: under `make run PORT=N` a model server was sent image URLs on port 8000, where
    nothing answered. The served address follows HOST and PORT (0.0.0.0 is reached on the loopback),
    and a deployment's SITE_URL (a proxy in front) still wins."""
    for target, port in (("run", 8123), ("serve", 8124)):
        served = _served_environment(target, port)
        assert _signed_url(served).startswith(f"http://127.0.0.1:{port}/api/v1/signed/images/"), target
        proxied = _signed_url(served | {"SITE_URL": "https://vtt.example.org/"})
        assert proxied.startswith("https://vtt.example.org/api/v1/signed/images/")
