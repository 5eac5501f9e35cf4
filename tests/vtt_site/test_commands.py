"""Issue 37: `manage.py run_baselines` ended in a Python traceback. Every management command of the
platform ends in a message and a non-zero exit on bad input or a foreseeable failure, never a traceback
(vtt_site.commands, decision 0070): each command is run here as from a shell, with bad input."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.core.management import execute_from_command_line, get_commands, load_command_class

from vtt_site.commands import PlatformCommand

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "formats"
PROJECT_APPS = {"accounts", "annotations", "demo", "engine", "evaluation", "frontend", "truthing", "vtt_site"}


def project_commands() -> dict[str, str]:
    """Every management command of the platform's own apps: name -> app."""
    return {name: app for name, app in get_commands().items() if app in PROJECT_APPS}


def published_test_without_pixels(world: dict[str, Any]) -> None:
    """A published test whose images lost their pixels: one made before tests refused them."""
    from annotations.models import Image
    from tests.evaluation.conftest import build_test

    test = build_test(name="made before the rule")
    Image.objects.filter(pk__in=test.test_images.values("image")).update(file="")
    world["test"] = test.pk


def published_test(world: dict[str, Any]) -> None:
    from tests.evaluation.conftest import build_test

    world["test"] = build_test(name="published").pk


def a_collection(world: dict[str, Any]) -> None:
    from tests.factories import CollectionFactory

    world["collection"] = CollectionFactory(name="commands").name


def var_dir_under_a_file(world: dict[str, Any]) -> None:
    """demo_setup keeps its passwords in VAR_DIR: here a folder that cannot be made."""
    blocker = world["tmp"] / "a-file"
    blocker.write_text("not a folder")
    world["settings"].VAR_DIR = blocker / "var"


def no_retries_waits(world: dict[str, Any]) -> None:
    """The client retries a server that does not answer with growing waits: not in a test."""
    world["monkeypatch"].setattr("vtt_client.client.time.sleep", lambda seconds: None)


@dataclass
class Case:
    argv: list[str]
    said: str  # in what the command writes to standard error
    setups: list[Callable[[dict[str, Any]], None]] = field(default_factory=list)


CASES = {
    "run_baselines: the seeing baseline on a test without pixels": Case(
        ["run_baselines", "--test", "{test}", "--only", "seeing"],
        "The seeing baseline cannot take 'made before the rule': none of the 3 test images has pixels",
        [published_test_without_pixels],
    ),
    "run_baselines: a server that does not answer": Case(
        ["run_baselines", "--test", "{test}", "--only", "always-yes", "--url", "http://127.0.0.1:9"],
        "always-yes stopped: the platform at http://127.0.0.1:9 cannot be reached",
        [published_test, no_retries_waits],
    ),
    "run_baselines: no baseline named": Case(["run_baselines", "--only", ","], "Name one or more of"),
    "run_baselines: not an address": Case(
        ["run_baselines", "--url", "127.0.0.1:8000"], "--url must be a server's address"
    ),
    "run_baselines: no demo images": Case(["run_baselines", "--demo-images", "0"], "--demo-images must be"),
    "run_baselines: no such test": Case(["run_baselines", "--test", "999999"], "no published test 999999"),
    "propose_mapping: a file that cannot be written": Case(
        [
            "propose_mapping",
            str(FIXTURES / "vg" / "scene_graphs"),
            "--collection",
            "{collection}",
            "--format",
            "vg",
            "--out",
            "{tmp}/no-such-folder/mapping.yaml",
        ],
        "no-such-folder/mapping.yaml: No such file or directory",
        [a_collection],
    ),
    "import_scenes: no such file": Case(
        ["import_scenes", "{tmp}/missing.jsonl", "--collection", "{collection}", "--format", "jsonl"],
        "missing.jsonl: No such file or directory",
        [a_collection],
    ),
    "export_scenes: no such collection": Case(
        ["export_scenes", "--collection", "nobody's", "--format", "jsonl", "--out", "-"],
        "No collection has the id or name",
    ),
    "bucket_source: a collection without a source": Case(
        ["bucket_source", "--collection", "{collection}"],
        "has no bucket source: give --bucket.",
        [a_collection],
    ),
    "media_move: no direction": Case(["media_move"], "the following arguments are required: --to"),
    "storage_sweep: a negative grace period": Case(
        ["storage_sweep", "--grace", "-1"], "--grace must be 0 or more seconds."
    ),
    "demo_setup: a folder for the passwords that cannot be made": Case(
        ["demo_setup", "--no-baselines"], "a-file/var: Not a directory", [var_dir_under_a_file]
    ),
    "ranking_check: a test that is not published": Case(
        ["ranking_check", "--test", "999999"], "There is no published or archived test 999999"
    ),
    "install_default_vocabulary: an argument it does not take": Case(
        ["install_default_vocabulary", "street"], "unrecognized arguments: street"
    ),
}


def test_every_command_of_the_platform_has_a_case_and_the_one_mechanism():
    names = {case.argv[0] for case in CASES.values()}
    assert set(project_commands()) <= names, "a command without a bad-input case below"
    for name, app in project_commands().items():
        assert isinstance(load_command_class(app, name), PlatformCommand), name


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_a_command_given_bad_input_ends_in_a_message(case, capsys, settings, monkeypatch, tmp_path):
    world: dict[str, Any] = {"tmp": tmp_path, "settings": settings, "monkeypatch": monkeypatch}
    for setup in case.setups:
        setup(world)
    argv = ["manage.py", *(arg.format(**world) for arg in case.argv)]
    try:
        execute_from_command_line(argv)
    except SystemExit as exit:
        code = exit.code
    except Exception as exc:  # what a shell would show as a traceback
        pytest.fail(f"{' '.join(argv[1:])} ended in a traceback: {exc!r}")
    else:
        code = 0
    err = capsys.readouterr().err
    assert code not in (0, None), err
    assert case.said in err, err
    assert "Traceback" not in err


def test_a_command_on_a_database_that_was_never_migrated_says_so(tmp_path):
    """A newcomer's first command before `manage.py migrate`: a message, not the database's traceback."""
    env = os.environ | {"DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}", "VAR_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "manage.py", "install_default_vocabulary"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "The database refused: no such table" in done.stderr
    assert "`manage.py migrate` has run" in done.stderr and "Traceback" not in done.stderr
