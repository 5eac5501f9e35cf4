"""Issue 49, item 6: never an object without its row nor a row without its object, unnoticed. A worker
killed between the two writes of an upload (the object put, its row not yet) leaves an object no row
names; an object lost by the store leaves a row without it. The sweep (`manage.py storage_sweep`) finds
and reports both, and removes the first kind when asked."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import connection

from annotations.models import Image
from annotations.services.images import image_upload
from tests.annotations.images import image_bytes, upload
from tests.storage_fixtures import s3_environment
from vtt_site.storage_sweep import storage_sweep

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
# The upload of one image, in a process that stops between the two writes: its object is in the store,
# its row about to be saved; the test kills it there.
WORKER = """
import sys, time, django
django.setup()
from annotations.models import Collection, Image
from annotations.services.images import image_upload
from django.core.files.base import ContentFile

def between(self, *args, **kwargs):
    print("object stored", flush=True)
    time.sleep(120)

Image.save = between
image_upload(
    collection=Collection.objects.get(pk=int(sys.argv[1])),
    files=[ContentFile(open(sys.argv[2], "rb").read(), name="killed.png")],
)
"""


def killed_between_the_writes(collection, bucket: str, settings, tmp_path: Path) -> None:
    picture = tmp_path / "killed.png"
    picture.write_bytes(image_bytes("PNG", size=(40, 30), color=(200, 10, 10)))
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}",
        "SECRET_KEY": settings.SECRET_KEY,
        "MEDIA_ROOT": str(tmp_path / "worker-media"),
        **s3_environment(bucket),
        "DJANGO_SETTINGS_MODULE": "vtt_site.settings",
    }
    process = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(collection.pk), str(picture)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.strip() == "object stored", line + process.stdout.read()[-3000:]
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
    assert not (tmp_path / "worker-media").exists()


def test_the_sweep_finds_an_object_without_its_row_and_a_row_without_its_object(
    bucket, settings, collection, tmp_path, capsys
):
    killed_between_the_writes(collection, bucket, settings, tmp_path)
    assert not Image.objects.exists()
    kept = image_upload(collection=collection, files=[upload("kept.png", image_bytes("PNG", size=(30, 20)))])
    lost = image_upload(
        collection=collection, files=[upload("lost.png", image_bytes("PNG", size=(20, 30)))]
    ).created[0]
    default_storage.delete(lost.file.name)  # the store lost it

    young = storage_sweep()  # an object younger than an hour may belong to a write still under way
    assert (young.orphans, young.young) == ([], 1)
    report = storage_sweep(grace_seconds=0)
    [orphan] = report.orphans
    assert orphan.startswith("images/") and orphan != kept.created[0].file.name
    assert report.missing == [lost.file.name]

    call_command("storage_sweep", "--grace", "0", "--remove")
    out, err = capsys.readouterr()
    assert f"no row: {orphan} (removed)" in out and f"no file: {lost.file.name}" in out
    assert "1 file(s) no row names, 1 removed; 1 row(s) whose file is gone" in err
    assert not default_storage.exists(orphan) and default_storage.exists(kept.created[0].file.name)
    assert storage_sweep(grace_seconds=0).orphans == []
