"""What a vision-system owner is offered to copy works as it is (issue 46, item 3): in a virtualenv of
its own, with the client installed as the home page and the guide say (`pip install -e clients/python`,
no extras: no Pillow), the home page's lines take a whole test against a live server of the platform
and print the score as a person reads it, and `vtt --help` answers instead of ending in a traceback.

The virtualenv is made once for the module (pip takes about half a minute); the tests that run in it
share it, and none of them installs anything more into it."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from evaluation.models import Answer, Session
from tests.evaluation.conftest import build_test
from tests.parallel import ONE_AT_A_TIME
from tests.serving import ROOT

pytestmark = [pytest.mark.django_db(transaction=True), ONE_AT_A_TIME]

INSTALL = ["install", "-e", "clients/python"]  # what the home page and docs/guides/vision-system.md say
SNIPPET = re.compile(r"<code data-copy-source>(.*?)</code>", re.S)


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory) -> Path:
    """A new virtualenv (not this one's packages, not the system's) with the client installed in it."""
    folder = tmp_path_factory.mktemp("fresh-venv")
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=120)
    install = subprocess.run(
        [str(folder / "bin" / "pip"), "--disable-pip-version-check", "--quiet", *INSTALL],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    # What the test is about: none of the extras' packages is there.
    assert run_in(folder, ["python", "-c", "import PIL"]).returncode != 0, "Pillow is in the fresh virtualenv"
    return folder


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what would lead a child to this virtualenv's packages."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    return env | extra


def run_in(venv: Path, command: list[str], *, cwd: Path | None = None, **env: str):
    return subprocess.run(
        [str(venv / "bin" / command[0]), *command[1:]],
        cwd=cwd or venv,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def offered_lines(live_server, client, owner) -> str:
    """The lines the owner's home page offers to copy, as its Copy button copies them (the text of the
    code, without the markup), from the page the live server serves."""
    client.force_login(owner)
    cookies = {name: morsel.value for name, morsel in client.cookies.items()}
    page = httpx.get(f"{live_server.url}/", cookies=cookies)
    assert page.status_code == 200
    found = SNIPPET.search(page.text)
    assert found, "the home page offers no lines to copy"
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def test_the_home_pages_lines_take_a_test_in_a_fresh_virtualenv_and_print_a_sentence(
    fresh_venv, live_server, client, owner, system, system_token, tmp_path
):
    test = build_test(name="copied lines")
    lines = offered_lines(live_server, client, owner)
    (tmp_path / "take.py").write_text(lines)
    ran = run_in(fresh_venv, ["python", "take.py"], cwd=tmp_path, VTT_TOKEN=system_token)
    assert ran.returncode == 0, f"{lines}\n---\n{ran.stderr[-3000:]}"
    # The lines' stand-in for a system says yes to everything: 7 of the 11 answers are right.
    assert (
        ran.stdout.strip().splitlines()[-1]
        == "accuracy 0.636 (95% interval 0.354 to 0.848) over 11 questions"
    )
    session = Session.objects.get(system=system, test=test)
    assert session.state == "finished" and Answer.objects.filter(session=session).count() == 11


def test_vtt_help_answers_without_pillow(fresh_venv):
    ran = run_in(fresh_venv, ["vtt", "--help"])
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "take" in ran.stdout and "Traceback" not in ran.stderr
    # A backend's options are listed without its optional packages (the openai SDK, Pillow).
    ran = run_in(fresh_venv, ["vtt", "take", "openai", "--help"])
    assert ran.returncode == 0 and "--base-url" in ran.stdout, ran.stderr[-3000:]
