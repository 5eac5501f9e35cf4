"""Issue 49, item 7: `manage.py media_move` copies a deployment's files from the filesystem to the bucket
and back, checking every copy's checksum, resumable (a copy that differs is made again, one that is
there is left), and says what it did."""

from __future__ import annotations

import hashlib

import pytest
from django.core.files.base import ContentFile
from django.core.management import CommandError, call_command

from tests.storage_fixtures import bucket_options
from vtt_site import storage_move
from vtt_site.storage_move import bucket_storage, filesystem_storage

FILES = {
    "images/a.png": b"\x89PNG first" * 100,
    "engine/statistics-1-abc.npz": b"arrays" * 1000,
    "thumbnails/3/7-0123.jpg": b"\xff\xd8 small",
}


@pytest.fixture
def moving(bucket, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.S3_STORAGE_OPTIONS = bucket_options(bucket)["OPTIONS"]
    source = filesystem_storage()
    for name, data in FILES.items():
        source.save(name, ContentFile(data))
    return source


def contents(storage) -> dict[str, str]:
    names = storage_move.storage_walk(storage, "")
    return {name: hashlib.md5(storage.open(name).read()).hexdigest() for name in names}


def test_files_go_to_the_bucket_and_back_with_their_checksums_and_a_second_run_copies_nothing(
    moving, settings, tmp_path, capsys
):
    call_command("media_move", "--to", "bucket")
    assert "To the bucket: 3 file(s) copied, 0 replaced" in capsys.readouterr().err
    bucket = bucket_storage()
    assert contents(bucket) == contents(moving)

    call_command("media_move", "--to", "bucket")
    assert (
        "0 file(s) copied, 0 replaced (their checksum differed), 3 already there" in capsys.readouterr().err
    )

    settings.MEDIA_ROOT = tmp_path / "elsewhere"
    call_command("media_move", "--to", "filesystem", "--verbose-files")
    out, err = capsys.readouterr()
    assert "copied: images/a.png" in out and "To the filesystem: 3 file(s) copied" in err
    assert contents(filesystem_storage()) == contents(bucket)


def test_a_move_cut_short_is_finished_by_running_it_again(moving, monkeypatch):
    bucket = bucket_storage()
    bucket.save("images/a.png", ContentFile(b"a copy that went wrong"))  # there, but not the same bytes
    real_save, saved = type(bucket).save, []

    def save_then_stop(self, name, content, *args, **kwargs):
        if saved:
            raise KeyboardInterrupt
        saved.append(name)
        return real_save(self, name, content, *args, **kwargs)

    monkeypatch.setattr(type(bucket), "save", save_then_stop)
    with pytest.raises(CommandError, match="Interrupted"):
        call_command("media_move", "--to", "bucket")
    monkeypatch.undo()
    report = storage_move.media_move(source=moving, target=bucket_storage())
    assert (report.copied + report.replaced, report.present) == (2, 1), report  # the one copied is kept
    assert contents(bucket_storage()) == contents(moving)


def test_a_copy_whose_checksum_differs_is_an_error(moving, monkeypatch):
    monkeypatch.setattr(storage_move, "checksum", lambda storage, name: str(id(storage)))
    with pytest.raises(CommandError, match="the copy's checksum differs"):
        call_command("media_move", "--to", "bucket")
