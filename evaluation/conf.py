"""The evaluation app's settings (vtt_site.app_settings): read as `conf.NAME`, overridden in a test as a
Django setting of the same name."""

from __future__ import annotations

from vtt_site.app_settings import INT, AppSettings, Setting, at_least


class EvaluationSettings(AppSettings):
    """Evaluation: enrolment and the leaderboard"""

    EVALUATION_MAX_SYSTEMS_PER_TEST = Setting(
        INT,
        3,
        "How many vision systems of one owner may enrol in one test (each session teaches its system every "
        "correct answer).",
        check=at_least(1),
    )
    EVALUATION_POSITION_MIN = Setting(
        INT,
        20,
        "A takeable test's leaderboard pools accuracy by position into bins: a bin starts only at a "
        "position this many streams reach, once the bin before holds this many answers.",
        check=at_least(1),
    )


conf = EvaluationSettings()
