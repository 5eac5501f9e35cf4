"""The stages of benchmarks.field_run, each through the platform's services and jobs. Each takes the
run's ids (what earlier stages made, kept in results.json) and returns what it reports."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
from django.db import connection, transaction

from annotations.models import Collection, Image, Split, Stage
from annotations.services.collections import collection_create
from annotations.services.images import image_pixels_attach, image_update, limits_from_settings
from annotations.services.vocabularies import vocabulary_install_default
from benchmarks.report import ROOT
from benchmarks.vg_download import mapping_text, write_download

COLLECTION = "Visual Genome (field run)"
TEST = "Visual Genome field test"
JOB_LIMIT = 4 * 3600.0  # seconds a job may take before the run gives up

# What each stage did, filled from its figures (the rows of the section).
DESCRIBED = {
    "generate": "the download written: {images:,} images, {objects:,} objects, a {zip_mb:,.0f} MB zip",
    "map": "`propose_mapping` over the whole download: {proposed_names:,} names proposed for "
    "{proposed_types:,} types, {dropped_names:,} to drop (the run then imports with the generator's mapping)",
    "import": "`import_create` + the import job (worker): {images:,} images, {objects:,} objects kept",
    "hold out": "{images:,} images to the test split (`image_update`) with pixels (`image_pixels_attach`)",
    "fit": "`statistics_fit_start` + the fit job (worker): {n_images:,} training images, {n_objects:,} "
    "objects",
    "test": "`create_test`, `start_test`, the oracle's automatic truthing (worker): {streams:,} streams, "
    "{questions:,} questions",
    "publish": "`publish_test`",
    "take": "blind-prior over HTTP (gunicorn, a dealer): {questions:,} questions, {requests:,} requests, "
    "first question {first_question:.2f} s after the enrolment (its request {enrol:.2f} s), the deal "
    "{deal:,.1f} s",
}


class Peak:
    """The largest resident memory of one process among those `pids()` names, sampled in a thread."""

    def __init__(self, pids) -> None:
        self.pids, self.mb, self._stop = pids, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> Peak:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while True:
            for pid in self.pids():
                with contextlib.suppress(psutil.Error):
                    self.mb = max(self.mb, psutil.Process(pid).memory_info().rss / 2**20)
            if self._stop.wait(0.2):
                return


def tree(pid: int, itself: bool = True):
    """The process and its descendants (gunicorn's workers, the command's); without `itself`, only the
    descendants (a Celery worker's pool process, which runs the tasks: the main process only hands
    them over, and its own 180 MB would hide a smaller task's)."""

    def pids() -> list[int]:
        try:
            children = [p.pid for p in psutil.Process(pid).children(recursive=True)]
        except psutil.Error:
            return []
        return [pid, *children] if itself else children

    return pids


def wait_idle(*trees, limit: float = 60.0) -> float:
    """Until the processes of `trees` (each `tree(pid)`) used under 5% of a core over half a second, as a
    service does once its processes have started; the seconds waited. The take enrols then, as a system
    enrols on a platform that is up, so that the first question never includes a process's start
    (a Django start is 3.8 s of CPU on the 2026-11-29 machine)."""
    started = time.monotonic()

    def cpu() -> float:
        total = 0.0
        for pids in trees:
            for pid in pids():
                with contextlib.suppress(psutil.Error):
                    times = psutil.Process(pid).cpu_times()
                    total += times.user + times.system
        return total

    before = cpu()
    while time.monotonic() - started < limit:
        time.sleep(0.5)
        now = cpu()
        if now - before < 0.025:
            break
        before = now
    return time.monotonic() - started


NOTES = """How to read it. The stages run one after the other as a team would run them: the download's
mapping maps the common names of persons and vehicles to the default vocabulary and drops or leaves
unknown the rest (benchmarks.vg_download), so the collection keeps a few hundred thousand of the 3.8
million objects; the import is declared complete and marked reviewed, and the test images are held out
and given pixels before the fit (decision 0103). The long jobs (import, fit, truthing) run in one
long-jobs worker process as `make serve` runs it (niceness 10), so on a busy machine they give way to
everything else. The take enrols once gunicorn and the dealer have started and gone idle (`wait_idle`),
as on a platform that is up; the first question is timed from the enrolment's answer, asking every
10 ms; the Python client then resumes that session and takes the whole test. Memory: the largest resident size of
the process doing the stage, sampled every 0.2 s (decision 0104)."""


def wait_job(model, pk: int, done: str, what: str):
    """Until the job's row says `done` (its row then), or exit on failed."""
    deadline = time.monotonic() + JOB_LIMIT
    while time.monotonic() < deadline:
        row = model.objects.get(pk=pk)
        if row.status == done:
            return row
        if row.status in ("failed", "cancelled"):
            sys.exit(f"{what} {row.status}: {row.message}")
        time.sleep(0.5)
    sys.exit(f"{what} still {row.status} after {JOB_LIMIT:.0f} s")


def generate(folder: Path, images: int) -> dict:
    written = write_download(folder / "vg.zip", images)
    (folder / "mapping.json").write_text(mapping_text())
    return {"images": images, "objects": written.objects, "zip_mb": (folder / "vg.zip").stat().st_size / 1e6}


def collection_of(ids: dict) -> Collection:
    """The run's collection on the default vocabulary, made by the first stage that needs it."""
    vocabulary, _ = vocabulary_install_default()
    collection = Collection.objects.filter(name=COLLECTION).first() or collection_create(
        name=COLLECTION, vocabulary=vocabulary
    )
    ids["collection"] = collection.pk
    return collection


def propose(folder: Path, ids: dict, env: dict) -> dict:
    """The collection on the default vocabulary, and the platform's mapping proposal of the download,
    made by the command in a process of its own (its peak memory sampled)."""
    collection = collection_of(ids)
    ids["database"] = f"{connection.display_name} {connection.get_database_version()[0]}"
    out = folder / "proposed.yaml"
    command = [sys.executable, "manage.py", "propose_mapping", str(folder / "vg.zip"), "--collection",
               str(collection.pk), "--format", "vg", "--out", str(out)]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    with Peak(tree(process.pid)) as peak:
        _, errors = process.communicate()
    if process.returncode:
        sys.exit(f"propose_mapping failed: {errors[-2000:]}")
    proposed = out.read_text()
    return {"peak_mb": peak.mb, **_counted(proposed)}


def _counted(yaml_text: str) -> dict:
    import yaml

    proposed = yaml.safe_load(yaml_text) or {}
    types = proposed.get("types") or {}
    return {
        "proposed_types": len(types),
        "proposed_names": sum(len(t.get("names") or []) for t in types.values()),
        "dropped_names": len((proposed.get("drop") or {}).get("names") or []),
    }


def import_download(folder: Path, ids: dict) -> dict:
    from django.core.files import File

    from annotations.models import ObjectAnnotation
    from datasets.models import ImportJob
    from datasets.services.creation import import_create

    collection = collection_of(ids)
    with (folder / "vg.zip").open("rb") as handle, (folder / "mapping.json").open("rb") as rules:
        job = import_create(
            collection=collection,
            format="vg",
            file=File(handle, name="vg.zip"),
            mapping=File(rules, name="mapping.json"),
            complete=True,
            mark_reviewed=True,
        )
    ids["import"] = job.pk
    wait_job(ImportJob, job.pk, ImportJob.Status.DONE, "the import")
    objects = ObjectAnnotation.objects.filter(image__collection=collection).count()
    return {"images": collection.images.count(), "objects": objects}


def hold_out(ids: dict, count: int) -> dict:
    """Every n-th accepted image by id into the test split, with pixels of its size (a flat colour and
    a few pixels of its own, so that no two are the same picture)."""
    from annotations.files import check_image

    collection = Collection.objects.get(pk=ids["collection"])
    accepted = list(
        collection.images.filter(stage=Stage.ACCEPTED).order_by("pk").values_list("pk", flat=True)
    )
    chosen = accepted[:: max(1, len(accepted) // count)][:count]
    limits = limits_from_settings()
    for image in Image.objects.filter(pk__in=chosen):
        if image.split != Split.TEST:
            image_update(image=image, split=Split.TEST)
        if not image.file:
            image_pixels_attach(image=image, checked=check_image(_picture(image), limits))
    return {"images": len(chosen)}


def _picture(image: Image) -> bytes:
    from PIL import Image as PILImage

    picture = PILImage.new("RGB", (image.width, image.height), (image.pk % 251, 90, 140))
    for n, byte in enumerate(image.pk.to_bytes(4, "big")):
        picture.putpixel((n, 0), (byte, byte, byte))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


def fit(ids: dict) -> dict:
    from engine.models import FitStatus, FittedStatistics
    from engine.services import statistics_fit_start

    collection = Collection.objects.get(pk=ids["collection"])
    statistics = statistics_fit_start(user=None, collections=[collection])
    ids["statistics"] = statistics.pk
    row = wait_job(FittedStatistics, statistics.pk, FitStatus.READY, "the fit")
    return {"n_images": row.n_images, "n_objects": row.n_objects, "fit_seconds": row.fit_seconds,
            "file_mb": row.file_size / 1e6}  # fmt: skip


def build_test(ids: dict) -> dict:
    from engine.models import FittedStatistics
    from truthing.models import AutomaticTruthing, Step, Stream
    from truthing.services import lifecycle

    collection = Collection.objects.get(pk=ids["collection"])
    image_ids = list(collection.images.filter(split=Split.TEST).order_by("pk").values_list("pk", flat=True))
    statistics = FittedStatistics.objects.get(pk=ids["statistics"])
    with transaction.atomic():
        # A name of its own: a stage that stopped half-way left its draft under the name it took.
        name = f"{TEST} ({statistics.pk}, {time.time():.0f})"
        test = lifecycle.create_test(name=name, statistics=statistics, image_ids=image_ids, seed=1)
        lifecycle.start_test(test=test)
    ids["test"] = test.pk
    for job in AutomaticTruthing.objects.filter(test=test):
        wait_job(AutomaticTruthing, job.pk, "done", "the automatic truthing")
    streams = Stream.objects.filter(test_image__test=test)  # the test's own (pool) streams
    return {"streams": streams.count(), "questions": Step.objects.filter(stream__in=streams).count()}


def publish(ids: dict) -> dict:
    from truthing.models import Test
    from truthing.services import lifecycle

    lifecycle.publish_test(test=Test.objects.get(pk=ids["test"]))
    return {}


def first_question(url: str, secret: str, test_id: int) -> tuple[int, float, float]:
    """Enrol over HTTP, then ask for the question every 10 ms until it is there (as
    benchmarks.first_question does; the client waits the server's Retry-After between two asks): the
    session, the enrolment request's seconds, and the seconds from its answer to the first question."""
    import httpx

    with httpx.Client(base_url=url, headers={"Authorization": f"Token {secret}"}, timeout=30) as client:
        started = time.perf_counter()
        response = client.post(f"/api/v1/evaluation/tests/{test_id}/sessions/", json={})
        enrolled = time.perf_counter()
        response.raise_for_status()
        session = response.json()["id"]
        while (status := client.get(f"/api/v1/evaluation/sessions/{session}/question/").status_code) != 200:
            if status != 409 or time.perf_counter() - enrolled > JOB_LIMIT:
                sys.exit(f"no first question: {status}")
            time.sleep(0.01)
        return session, enrolled - started, time.perf_counter() - enrolled


def take(url: str, ids: dict) -> dict:
    """The blind baseline (blind-prior) enrols, its first question is timed, and it takes the test with
    the Python client, which resumes the session."""
    from accounts.roles import Role
    from accounts.services import user_create_with_role
    from demo.baseline_runs import BASELINES, session_p
    from demo.baselines import run
    from evaluation.models import Session
    from evaluation.services.systems import system_create, system_token_create
    from truthing.models import Test

    test = Test.objects.get(pk=ids["test"])
    owner = user_create_with_role(username="field-run", password=None, role=Role.VISION_SYSTEM_OWNER)
    system = system_create(owner=owner, name=f"baseline: blind-prior {time.time():.0f}",
                           description=BASELINES["blind-prior"], baseline="blind-prior")  # fmt: skip
    secret = system_token_create(system=system, name=f"field run {time.time():.0f}")[1]
    session_id, enrolled, first = first_question(url, secret, test.pk)
    print(f"first question {first:.2f} s after the enrolment ({enrolled:.2f} s)", file=sys.stderr, flush=True)
    result = run.take_test(url, secret, test.pk, run.blind_prior(session_p(system, test)))
    assert result["session"] == session_id  # the client resumed the session enrolled above
    deal = Session.objects.select_related("deal").get(pk=result["session"]).deal
    assert deal is not None and deal.started_at and deal.finished_at  # dealt whole: the session ended
    dealt = (deal.finished_at - deal.started_at).total_seconds()
    return {"questions": result["questions"], "requests": result["requests"], "deal": dealt,
            "enrol": enrolled, "first_question": first, "accuracy": result["accuracy"].value}  # fmt: skip
