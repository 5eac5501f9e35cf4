"""Settings declared once per app and read as attributes (vtt_site.app_settings, decision 0082)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from engine.conf import EngineAppSettings
from engine.core.settings import EngineSettings
from engine.settings import ENVIRONMENT_NAMES
from truthing.conf import TruthingSettings
from truthing.conf import conf as truthing_conf
from vtt_site import settings as settings_module
from vtt_site.app_settings import (
    FLOAT,
    INT,
    AppSettings,
    Setting,
    check_installed,
    env_example,
    installed,
)

ROOT = Path(__file__).resolve().parents[2]


class Sample(AppSettings):
    """Sample: a group of two"""

    SAMPLE_SIZE = Setting(INT, 3, "How many.")
    SAMPLE_SHARE = Setting(FLOAT, 0.5, "How much.", check=lambda v: None if v <= 1 else "at most 1")
    SAMPLE_TWICE = Setting(INT, lambda earlier: earlier["SAMPLE_SIZE"] * 2, "Twice SAMPLE_SIZE.")


def test_unset_and_empty_mean_the_default_and_a_set_variable_wins():
    assert (Sample({}).SAMPLE_SIZE, Sample({}).SAMPLE_SHARE, Sample({}).SAMPLE_TWICE) == (3, 0.5, 6)
    assert Sample({"SAMPLE_SIZE": " "}).SAMPLE_SIZE == 3
    read = Sample({"SAMPLE_SIZE": "7", "SAMPLE_SHARE": "0.25"})
    assert (read.SAMPLE_SIZE, read.SAMPLE_SHARE, read.SAMPLE_TWICE) == (7, 0.25, 14)


def test_a_bad_value_is_refused_with_the_variable_named_and_what_it_must_be():
    with pytest.raises(
        ImproperlyConfigured, match=r"^SAMPLE_SIZE must be an integer; got 'many' \(the setting: How many"
    ):
        assert Sample({"SAMPLE_SIZE": "many"}).SAMPLE_SHARE  # any read of the app reads them all
    with pytest.raises(ImproperlyConfigured, match=r"^SAMPLE_SHARE must be at most 1; got '2'"):
        assert Sample({"SAMPLE_SHARE": "2"}).SAMPLE_SIZE
    with pytest.raises(
        ImproperlyConfigured, match=r"TRUTHING_CHECK_SHARE must be between 0 and 1; got '1\.5'"
    ):
        TruthingSettings({"TRUTHING_CHECK_SHARE": "1.5"}).load()


def test_the_environment_is_read_once():
    environ = {"SAMPLE_SIZE": "4"}
    read = Sample(environ)
    assert read.SAMPLE_SIZE == 4
    environ["SAMPLE_SIZE"] = "5"
    assert read.SAMPLE_SIZE == 4


def test_a_django_setting_of_the_same_name_overrides_for_a_test(settings):
    before = truthing_conf.TRUTHING_CHECK_SHARE
    settings.TRUTHING_CHECK_SHARE = 0.75
    assert truthing_conf.TRUTHING_CHECK_SHARE == 0.75
    del settings.TRUTHING_CHECK_SHARE
    assert before == truthing_conf.TRUTHING_CHECK_SHARE


def test_a_bad_variable_stops_the_system_checks_with_its_sentence(monkeypatch):
    assert check_installed() == []
    [truthing] = [conf for conf in installed() if type(conf).__module__ == "truthing.conf"]
    monkeypatch.setattr(truthing, "_values", None)
    monkeypatch.setattr(truthing, "_environ", {"TRUTHING_AUTOMATIC_PARTS": "two"})
    [error] = check_installed()
    assert error.msg.startswith("TRUTHING_AUTOMATIC_PARTS must be an integer; got 'two'")


def test_every_name_is_declared_once_and_none_is_a_setting_of_the_settings_module():
    """An override is a Django setting of the same name: one set in vtt_site/settings.py would hide the
    environment's value for good, and one name in two apps would make the override ambiguous."""
    names = [item.name for conf in installed() for item in type(conf).declarations()]
    assert len(names) == len(set(names))
    apps = [item.name for conf in list(installed())[1:] for item in type(conf).declarations()]
    assert [name for name in apps if hasattr(settings_module, name)] == []


def test_the_engine_declares_every_proposing_setting_of_the_core():
    declared = {item.name for item in EngineAppSettings.declarations()}
    assert set(ENVIRONMENT_NAMES) <= declared
    assert all(EngineAppSettings({}).load()[name] is None for name in ENVIRONMENT_NAMES)
    assert "default, 0.15" in EngineAppSettings.ENGINE_EPSILON.help.replace("default ", "default, ")
    assert EngineSettings().epsilon == 0.15


def test_the_env_example_is_written_from_the_declarations():
    """`.env.example` is generated; this fails when a declaration changed and the file was not written
    again. Run `python scripts/make_env_example.py`."""
    assert (ROOT / ".env.example").read_text() == env_example(list(installed())), (
        ".env.example is out of date: run `python scripts/make_env_example.py`"
    )


def test_a_group_names_its_app_and_each_variable_has_its_help_above_it():
    text = env_example([Sample({})])
    assert (
        "# --- Sample: a group of two (tests.vtt_site.test_app_settings)\n# How many.\nSAMPLE_SIZE=3\n"
        in text
    )
    assert "SAMPLE_TWICE=\n" in text  # a default made from another setting is shown empty


def test_make_env_writes_every_variable_of_the_example_and_a_secret_key():
    done = subprocess.run(
        [sys.executable, "scripts/make_env.py"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    example = (ROOT / ".env.example").read_text().splitlines()
    written = done.stdout.splitlines()
    assert len(written) == len(example)
    [key] = [line for line in written if line.startswith("SECRET_KEY=")]
    assert len(key) > len("SECRET_KEY=") + 40
    assert [line for line in written if not line.startswith("SECRET_KEY=")] == [
        line for line in example if not line.startswith("SECRET_KEY=")
    ]
