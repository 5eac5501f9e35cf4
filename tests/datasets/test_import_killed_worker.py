"""An import whose worker process is killed leaves nothing half-written, and the job, run again, imports
exactly the rows an undisturbed import gives (issue 37).

A generated Visual Genome download (benchmarks.vg_download: its four JSON files, the awkward cases but no
zero-width box, through the benchmark's mapping) is imported by a real process running `import_run`,
killed with SIGKILL while it validates or while it writes. The job's row still says it runs, and no image
of it is in the database; once its heartbeat is stale a new process takes the job over (vtt_site.jobs:
`job_claim`) and imports it whole. The workers beat every half second and are taken for dead after two.

What the open write transaction has written cannot be seen from another connection, but the ids it took
can: sequences are not transactional. The kill while writing waits until the second chunk of images has
taken its ids, so the first chunk's images, objects and relationships are all
written and uncommitted when the worker dies.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.db import connection

from annotations.models import Image, ObjectAnnotation, RelationshipAnnotation
from benchmarks.vg_download import mapping_text, write_download
from datasets.models import ImportJob
from datasets.services.creation import import_create
from datasets.services.run import import_run
from tests.datasets.formats import rows

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
IMAGES = 450
# The workers write 100 scenes a chunk and commit their progress every 100 records (500 and 500 in
# production), so that this small download has several of each.
CHUNK = 100
FAST = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_STALE_SECONDS": "2"}
WORKER = (
    "import sys, django; django.setup(); from datasets.services import plan, run, validation; "
    f"plan.WRITE_CHUNK = validation.PROGRESS_EVERY = {CHUNK}; run.import_run(job_id=int(sys.argv[1]))"
)


@functools.cache
def download(folder: Path) -> tuple[bytes, bytes]:
    path = folder / "vg.zip"
    write_download(path, IMAGES, seed=37, zero_width=False)
    return path.read_bytes(), mapping_text().encode()


@pytest.fixture
def files(tmp_path_factory) -> tuple[bytes, bytes]:
    return download(tmp_path_factory.getbasetemp())


def queued(collection, files: tuple[bytes, bytes]) -> ImportJob:
    data, mapping = files
    return import_create(
        collection=collection,
        format="vg",
        file=ContentFile(data, name="vg.zip"),
        mapping=ContentFile(mapping, name="mapping.json"),
        start=False,
    )


def worker(job: ImportJob, settings, log: Path) -> subprocess.Popen:
    """A process of its own running the import, on the test's database and media folder."""
    db = connection.settings_dict
    env = {
        **os.environ,
        **FAST,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}",
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "SECRET_KEY": settings.SECRET_KEY,
        "DJANGO_SETTINGS_MODULE": "vtt_site.settings",
    }
    with log.open("a") as out:
        return subprocess.Popen(
            [sys.executable, "-c", WORKER, str(job.pk)], cwd=ROOT, env=env, stdout=out, stderr=out
        )


def wait_for(condition: Callable[[], object], timeout: float, what: str, log: Path, every: float = 0.25):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(every)
    pytest.fail(f"Timed out after {timeout:.0f} s waiting for {what}.\n{log.read_text()[-3000:]}")


def last_id(model) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT last_value FROM pg_sequences WHERE sequencename = %s", [f"{model._meta.db_table}_id_seq"]
        )
        return cursor.fetchone()[0] or 0


def inside(job: ImportJob, process: subprocess.Popen, phase: str, first_image: int) -> Callable[[], bool]:
    def caught() -> bool:
        assert process.poll() is None, f"the worker ended before it was {phase}"
        status, lines_done = ImportJob.objects.filter(pk=job.pk).values_list("status", "lines_done").get()
        if status != phase:
            return False
        if phase == "validating":
            return lines_done > 0  # progress committed, and records still to read
        return last_id(Image) - first_image > CHUNK  # the first chunk written whole

    return caught


def undisturbed(files: tuple[bytes, bytes], known: dict[str, list[dict]] = {}) -> list[dict]:  # noqa: B006
    """The rows an undisturbed import of the download gives (imported here once per test process)."""
    if "rows" not in known:
        from tests.factories import CollectionFactory

        reference = CollectionFactory()
        job = import_run(job_id=queued(reference, files).pk)
        assert job.status == ImportJob.Status.DONE, job.errors[:3]
        known["rows"] = rows(reference)
    return known["rows"]


@pytest.mark.parametrize("phase", ["validating", "writing"])
def test_a_killed_import_leaves_nothing_and_its_job_run_again_imports_exactly_the_download(
    phase, files, settings, tmp_path
):
    if connection.vendor != "postgresql":
        pytest.fail("This test needs PostgreSQL (DATABASE_URL=postgres://…): it reads the tables' sequences.")
    from tests.factories import CollectionFactory

    expected = undisturbed(files)
    assert len(expected) == IMAGES and sum(len(r["relationships"]) for r in expected) > 100

    collection = CollectionFactory()
    job = queued(collection, files)
    log = tmp_path / "workers.log"
    first = worker(job, settings, log)
    wait_for(inside(job, first, phase, last_id(Image)), 120, f"the worker to be {phase}", log, every=0.01)
    os.kill(first.pid, signal.SIGKILL)
    first.wait()

    job.refresh_from_db()
    assert (job.status, job.attempts) == (phase, 1)  # nobody settled it: it is taken for running
    assert not Image.objects.filter(collection=collection).exists()
    assert not ObjectAnnotation.objects.filter(image__collection=collection).exists()
    assert not RelationshipAnnotation.objects.filter(image__collection=collection).exists()

    # A new worker takes the job over once the dead one's heartbeat is stale, and imports it whole.
    stale = float(FAST["JOB_STALE_SECONDS"]) + 0.5
    wait_for(
        lambda: time.time() - ImportJob.objects.get(pk=job.pk).heartbeat_at.timestamp() > stale,
        30,
        "the heartbeat to go stale",
        log,
    )
    second = worker(job, settings, log)
    assert second.wait(timeout=300) == 0, log.read_text()[-3000:]
    job.refresh_from_db()
    assert (job.status, job.attempts, job.images_created, job.lines_done) == ("done", 2, IMAGES, IMAGES)
    assert rows(collection) == expected
