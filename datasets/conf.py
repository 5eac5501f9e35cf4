"""The datasets app's settings (vtt_site.app_settings): read as `conf.NAME`, overridden in a test as a
Django setting of the same name. The limits of one image and of one annotation are the annotations app's
(`annotations.conf`): an import checks what a save checks."""

from __future__ import annotations

from vtt_site.app_settings import FLOAT, INT, AppSettings, Setting, between


class DatasetSettings(AppSettings):
    """Datasets: imports of downloads and their images"""

    IMPORT_IMAGES_MAX_BYTES = Setting(
        INT, 64 * 1024**3, "An import's images archive (a download's images): its unpacked size (bytes)."
    )
    IMPORT_IMAGES_MAX_FILES = Setting(INT, 2_000_000, "An import's images archive: the files it may hold.")
    IMPORT_MAX_REFUSED_SHARE = Setting(
        FLOAT,
        0.05,
        "An open-vocabulary import with more refused entries than this share is refused whole.",
        check=between(0, 1),
    )


conf = DatasetSettings()
