"""The engine's proposing settings have one reader: the core's defaults, then the environment (or a
test's Django setting of the same name, vtt_site.app_settings)."""

from __future__ import annotations

import pytest

from engine.conf import EngineAppSettings
from engine.core.settings import EngineSettings
from engine.settings import engine_settings
from kernel.errors import EngineError


def test_without_overrides_the_defaults_are_the_cores(settings):
    assert engine_settings() == EngineSettings()


def test_the_environment_overrides_and_a_caller_overrides_again(settings):
    environ = {"ENGINE_EPSILON": "0.1", "ENGINE_MAX_QUESTIONS": "40", "ENGINE_MIN_POPULATION": ""}
    read = EngineAppSettings(environ)
    assert (read.ENGINE_EPSILON, read.ENGINE_MAX_QUESTIONS, read.ENGINE_MIN_POPULATION) == (0.1, 40, None)
    settings.ENGINE_EPSILON, settings.ENGINE_MAX_QUESTIONS = 0.1, 40
    assert engine_settings() == EngineSettings(epsilon=0.1, max_questions=40)
    assert engine_settings(max_questions=12).max_questions == 12


def test_a_bad_value_is_refused_with_the_setting_named(settings):
    settings.ENGINE_EPSILON = 0.9
    with pytest.raises(EngineError, match="epsilon"):
        engine_settings()


def test_a_stored_test_that_names_a_retired_setting_is_read_without_it(settings):
    """Tests stored before decision 0034 name full_history_min_population; their streams go on."""
    assert engine_settings(full_history_min_population=40, epsilon=0.1) == EngineSettings(epsilon=0.1)


def test_a_prior_strength_of_zero_is_refused(settings):
    with pytest.raises(EngineError, match="prior_strength"):
        engine_settings(prior_strength=0)


def test_the_weighted_levels_strength_is_its_own_setting(settings):
    """Decision 0055: ENGINE_WEIGHTED_STRENGTH sets it; a test stored before it (no such key) is read
    with today's default, like the retired setting above; zero is refused with its name."""
    assert EngineAppSettings({"ENGINE_WEIGHTED_STRENGTH": "5"}).ENGINE_WEIGHTED_STRENGTH == 5.0
    settings.ENGINE_WEIGHTED_STRENGTH = 5.0
    assert engine_settings().weighted_strength == 5.0
    assert engine_settings(weighted_strength=3).weighted_strength == 3
    del settings.ENGINE_WEIGHTED_STRENGTH
    assert (
        engine_settings(prior_strength=40.0, epsilon=0.15).weighted_strength
        == EngineSettings().weighted_strength
    )
    with pytest.raises(EngineError, match="weighted_strength"):
        engine_settings(weighted_strength=0)


def test_the_relationship_found_levels_strength_is_its_own_setting(settings):
    """Decision 0059: ENGINE_RELATIONSHIP_STRENGTH sets it apart from the weighted strength; a test
    stored before it is read with today's default (20); zero is refused with its name."""
    assert EngineAppSettings({"ENGINE_RELATIONSHIP_STRENGTH": "7"}).ENGINE_RELATIONSHIP_STRENGTH == 7.0
    settings.ENGINE_RELATIONSHIP_STRENGTH = 7.0
    assert engine_settings().relationship_strength == 7.0
    assert engine_settings().weighted_strength == EngineSettings().weighted_strength
    del settings.ENGINE_RELATIONSHIP_STRENGTH
    stored_before = engine_settings(prior_strength=40.0, weighted_strength=2.0, min_evidence=10.0)
    assert stored_before.relationship_strength == EngineSettings().relationship_strength == 20.0
    with pytest.raises(EngineError, match="relationship_strength"):
        engine_settings(relationship_strength=0)


def test_the_evidence_a_uniqueness_question_needs_is_its_own_setting(settings):
    """Decision 0056: ENGINE_MIN_EVIDENCE sets it, 0 turns the rule off, a stored test without it gets
    today's default, and a negative value is refused with its name."""
    assert EngineAppSettings({"ENGINE_MIN_EVIDENCE": "0"}).ENGINE_MIN_EVIDENCE == 0.0
    settings.ENGINE_MIN_EVIDENCE = 0.0
    assert engine_settings().min_evidence == 0.0
    del settings.ENGINE_MIN_EVIDENCE
    assert engine_settings(weighted_strength=2.0).min_evidence == EngineSettings().min_evidence == 10.0
    with pytest.raises(EngineError, match="min_evidence"):
        engine_settings(min_evidence=-1)
