"""The crowd app's settings (vtt_site.app_settings): read as `conf.NAME`, overridden in a test as a Django
setting of the same name. What differs by collection (overlap, thresholds, gold rate) is a row of its
own (crowd.models.CrowdSettings), set on the collection's page."""

from __future__ import annotations

from vtt_site.app_settings import INT, AppSettings, Setting, at_least


class CrowdSettingsConf(AppSettings):
    """Crowds: several annotators per image, merges, gold"""

    CROWD_RELIABILITY_EVERY = Setting(
        INT,
        25,
        "Every this many merges of a collection, its annotators' reliability is estimated again.",
        check=at_least(1),
    )
    CROWD_RELIABILITY_MIN_ITEMS = Setting(
        INT,
        50,
        "Decisions an annotator must have made before their estimated reliability weighs their votes.",
        check=at_least(1),
    )


conf = CrowdSettingsConf()
