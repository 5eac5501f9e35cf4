"""Issue 38, item 10: `make run` printed setuptools' editable-install notice, 10 lines a package that no
newcomer can act on. The Makefile's installs go through PIP_INSTALL, whose PYTHONWARNINGS filter
silences that notice (it is a UserWarning of the build backend, which inherits the environment)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

MAKEFILE = Path(__file__).resolve().parents[2] / "Makefile"
# What setuptools' BuildBackendWarning prints, in the shape it has (a UserWarning).
NOTICE = (
    "import warnings; warnings.warn('Editable installation.\\n!!\\n\\n"
    "Please be careful with folders in your working directory with the same name as your package', UserWarning)"
)


def pip_install_env() -> dict[str, str]:
    """The environment assignments that PIP_INSTALL puts before pip."""
    text = MAKEFILE.read_text()
    line = re.search(r"^PIP_INSTALL := (.*)$", text, re.M)
    assert line, "the Makefile has no PIP_INSTALL"
    words = shlex.split(line.group(1))
    return dict(word.split("=", 1) for word in words if re.fullmatch(r"[A-Z_]+=.*", word))


def warns(env: dict[str, str]) -> str:
    run = subprocess.run(
        [sys.executable, "-c", NOTICE], env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    return run.stderr


def test_every_install_of_the_makefile_goes_through_pip_install():
    recipes = [line for line in MAKEFILE.read_text().splitlines() if "pip install" in line]
    installs = [line for line in recipes if " -e " in line]
    assert installs == [], f"an editable install not through PIP_INSTALL: {installs}"
    assert MAKEFILE.read_text().count("$(PIP_INSTALL) -e") == 2


def test_the_editable_install_notice_is_silenced_and_nothing_else():
    assert "Editable installation" in warns({"PYTHONWARNINGS": ""}), "the notice is not what it was"
    env = pip_install_env()
    assert warns(env) == ""
    other = "import warnings; warnings.warn('Something else went wrong', UserWarning)"
    shown = subprocess.run(
        [sys.executable, "-c", other], env={**os.environ, **env}, capture_output=True, text=True, check=True
    )
    assert "Something else went wrong" in shown.stderr, "the filter hides every warning"
