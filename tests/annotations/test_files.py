"""The file checks of `annotations.files` on their own: no database, no settings."""

from __future__ import annotations

import pytest

from annotations.files import FileLimits, Refused, check_image, clean_name, display_name, is_archiver_file
from tests.annotations.images import image_bytes

LIMITS = FileLimits(image_bytes=10_000_000, pixels=10_000_000, zip_bytes=10_000_000, files=10)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("x.png", "x.png"),
        ("../../x.png", "x.png"),
        ("/tmp/x.png", "x.png"),
        ("ok/../../x.png", "x.png"),
        ("..\\..\\x.png", "x.png"),
        ("C:\\Users\\me\\x.png", "x.png"),
    ],
)
def test_a_name_is_reduced_to_its_base_name(raw, clean):
    assert clean_name(raw) == clean


@pytest.mark.parametrize(
    "raw", ["", "..", "dir/..", "a/", "nul\x00name.png", "new\nline.png", "rtl\u202egnp.exe"]
)
def test_a_name_with_nothing_usable_or_control_characters_is_refused(raw):
    with pytest.raises(Refused) as refused:
        clean_name(raw)
    assert refused.value.code == "invalid_file_name"
    assert display_name(raw).isprintable()


def test_archiver_files_are_recognised():
    assert (
        is_archiver_file("__MACOSX/a/._x.png") and is_archiver_file("a/.DS_Store") and is_archiver_file("a/")
    )
    assert not is_archiver_file("..\\..\\x.png")


def test_an_image_is_checked_without_the_database():
    checked = check_image(image_bytes("PNG", size=(30, 20)), LIMITS)
    assert (checked.format, checked.width, checked.height, checked.extension) == ("PNG", 30, 20, "png")
    with pytest.raises(Refused):
        check_image(b"GIF89a not really", LIMITS)
