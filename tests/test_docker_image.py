"""Every installed app and every package of pyproject.toml reaches the Docker image (issue 20: the
Dockerfile copied the apps one by one and left out demo/, which is in INSTALLED_APPS, so the image could
not start).

Read from the Dockerfile's COPY lines and the .dockerignore, the way Docker decides what goes in; where
Docker works, the image is also built and asked to load Django (skipped here otherwise).
"""

from __future__ import annotations

import fnmatch
import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent


def copied_sources(dockerfile: str) -> list[str]:
    """The build-context sources of every COPY (and ADD) of the final stage; `.` is the whole context."""
    joined = re.sub(r"\\\n", " ", dockerfile)
    sources: list[str] = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if not words or words[0].upper() not in {"COPY", "ADD"}:
            continue
        arguments = [w for w in words[1:] if not w.startswith("--")]
        if any(w.startswith("--from") for w in words[1:]):
            continue  # from another stage or image, not from the context
        sources += [source.rstrip("/").removeprefix("./") or "." for source in arguments[:-1]]
    return sources


def ignore_rules(text: str) -> list[tuple[bool, re.Pattern[str]]]:
    """(keep, pattern) per .dockerignore line: Go's filepath.Match with `**`, a `!` line keeps again."""
    rules = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        keep = line.startswith("!")
        pattern = line.removeprefix("!").strip("/").removeprefix("./")
        regex = ""
        for part in re.split(r"(\*\*/?|\*|\?)", pattern):
            if part.startswith("**"):
                regex += "(.*/)?" if part.endswith("/") else ".*"
            elif part == "*":
                regex += "[^/]*"
            elif part == "?":
                regex += "[^/]"
            else:
                regex += re.escape(part)
        rules.append((keep, re.compile(regex)))
    return rules


def ignored(path: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """A path is left out when the last rule matching it or one of its parent folders excludes it."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    verdict = False
    for keep, pattern in rules:
        if any(pattern.fullmatch(prefix) for prefix in prefixes):
            verdict = not keep
    return verdict


def reaches_image(path: str, sources: list[str], rules) -> bool:
    copied = any(source == "." or path == source or path.startswith(source + "/") for source in sources)
    return copied and not ignored(path, rules)


def project_files(folder: str) -> list[str]:
    return sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / folder).rglob("*")
        if p.is_file()
        and not p.name.endswith(".pyc")
        and not any(part == "__pycache__" or part.endswith(".egg-info") for part in p.parts)
    )


def needed_folders() -> list[str]:
    """The project's own installed apps and the packages pyproject.toml installs (top-level folders)."""
    apps = {name.split(".")[0] for name in settings.INSTALLED_APPS if (ROOT / name.split(".")[0]).is_dir()}
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = {
        p.name
        for p in ROOT.iterdir()
        if (p / "__init__.py").exists() and any(fnmatch.fnmatch(p.name, pattern) for pattern in patterns)
    }
    assert "demo" in apps and "scoring" in packages  # the parsing found what it should
    return sorted(apps | packages | {"clients/python"})


def test_every_installed_app_and_package_reaches_the_image():
    sources = copied_sources((ROOT / "Dockerfile").read_text())
    ignore = ROOT / ".dockerignore"
    rules = ignore_rules(ignore.read_text() if ignore.exists() else "")
    missing = [
        path
        for folder in needed_folders()
        for path in project_files(folder)
        if not reaches_image(path, sources, rules)
    ]
    missing += [
        f for f in ("manage.py", "pyproject.toml", "README.md") if not reaches_image(f, sources, rules)
    ]
    assert not missing, f"left out of the image: {missing[:20]}"


def test_secrets_and_local_environments_stay_out_of_the_image():
    rules = ignore_rules((ROOT / ".dockerignore").read_text())
    for path in (".env", ".venv/bin/python", "var/db.sqlite3", ".git/config", "engine/__pycache__/x.pyc"):
        assert ignored(path, rules), path
    assert not ignored("engine/core/proposer.py", rules)


@pytest.mark.integration
@pytest.mark.skipif(
    shutil.which("docker") is None
    or subprocess.run(["docker", "info"], capture_output=True, check=False).returncode != 0,
    reason="Docker does not work on this machine",
)
def test_the_image_builds_and_loads_every_app():
    subprocess.run(["docker", "build", "-t", "vtt-platform-test", str(ROOT)], check=True)
    check = (
        "import django, os; os.environ.update(SECRET_KEY='x', DJANGO_SETTINGS_MODULE='vtt_site.settings'); "
        "django.setup(); print('ok')"
    )
    ran = subprocess.run(
        ["docker", "run", "--rm", "vtt-platform-test", "python", "-c", check],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.stdout.strip().endswith("ok"), ran.stderr
