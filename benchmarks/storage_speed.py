"""The filesystem against SeaweedFS (issue 49, item 8): import throughput with pixels, and the time to an
image's first byte for a vision system, in one run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt .venv/bin/python -m benchmarks.storage_speed \
        [--images 200] [--fetches 100] [--write]

For each store (MEDIA_ROOT in a scratch folder, then a fresh prefix of the local SeaweedFS's bucket, which
`scripts/ensure_seaweedfs.sh` starts when it is down):
1. An import of `--images` synthetic street scenes (demo.synthetic) with their rendered pictures in a
   zip, as `manage.py import_scenes` runs it in one process: the upload stored, the scene graphs written,
   every picture checked and stored; images per second over the whole job.
2. A vision system's image: a published test of 3 images (tests.evaluation.conftest.build_test), a
   session, and `--fetches` requests of the reached image through the API (Django's test client, so no
   web server's cost is counted) up to the first byte of the image itself: with the filesystem the
   response's first chunk, with the bucket the redirect and then the first byte of the presigned URL
   from SeaweedFS (httpx, streamed). Median and 95th percentile.
It runs in a scratch database, dropped after the run; `--write` puts the result in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import statistics
import sys
import tempfile
import time
import uuid
import zipfile
from pathlib import Path
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
django.setup()

import httpx  # noqa: E402
from django.core.files.base import ContentFile  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from benchmarks.report import commit, machine, write_section  # noqa: E402

SECTION = "storage-speed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--fetches", type=int, default=100)
    parser.add_argument("--write", action="store_true", help="Write the result into docs/benchmarks.md.")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("Run it on PostgreSQL: DATABASE_URL=postgres://...")
    from tests.storage_fixtures import bucket_options, seaweedfs_ensure

    seaweedfs_ensure()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per fetch otherwise
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    pictures = _download(args.images)
    results: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory() as folder:
            stores = {
                "filesystem": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
                "SeaweedFS": bucket_options(f"bench-{uuid.uuid4().hex[:8]}"),
            }
            for name, storage in stores.items():
                with override_settings(
                    MEDIA_ROOT=Path(folder) / "media",
                    STORAGES={"default": storage, "staticfiles": _static()},
                    S3_STREAM_IMAGES=False,
                ):
                    results[name] = {"import": _import(pictures), "first_byte": _first_byte(args.fetches)}
                    print(name, json.dumps(results[name]), file=sys.stderr)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    text = render(results, args)
    print(text)
    if args.write:
        write_section(SECTION, text)


def _static() -> dict:
    return {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}


def _download(count: int) -> tuple[bytes, bytes]:
    """The scene graphs (JSON Lines) and a zip of their pictures, made once for both stores."""
    from demo.pictures import scene_picture
    from demo.synthetic.scenes import generate_scenes

    scenes = list(generate_scenes(count, seed=49, prefix="bench"))
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as pictures:
        for scene in scenes:
            pictures.writestr(scene["image"], scene_picture(scene))
    return "".join(json.dumps(s) + "\n" for s in scenes).encode(), archive.getvalue()


def _import(download: tuple[bytes, bytes]) -> dict[str, Any]:
    from datasets.services.creation import import_create
    from datasets.services.run import import_run
    from tests.factories import CollectionFactory

    lines, pictures = download
    collection: Any = CollectionFactory()
    started = time.perf_counter()
    job = import_create(
        collection=collection,
        format="jsonl",
        file=ContentFile(lines, "scenes.jsonl"),
        images=ContentFile(pictures, "pictures.zip"),
        start=False,
    )
    job = import_run(job_id=job.pk)
    seconds = time.perf_counter() - started
    assert job.status == "done" and job.pixels_attached == job.lines_total, (job.status, job.errors[:3])
    return {
        "images": job.pixels_attached,
        "seconds": round(seconds, 2),
        "per_second": job.pixels_attached / seconds,
    }


def _first_byte(fetches: int) -> dict[str, Any]:
    from rest_framework.test import APIClient

    from accounts.roles import Role
    from evaluation.services.systems import system_create, system_token_create
    from tests.evaluation.conftest import build_test
    from tests.factories import UserFactory

    test = build_test(name=f"bench {uuid.uuid4().hex[:6]}")
    owner = UserFactory(role=Role.VISION_SYSTEM_OWNER)
    client = APIClient(HTTP_HOST="localhost")
    client.credentials(
        HTTP_AUTHORIZATION=f"Token {system_token_create(system=system_create(owner=owner, name=uuid.uuid4().hex[:8]), name='b')[1]}"
    )
    enrolled = client.post(f"/api/v1/evaluation/tests/{test.pk}/sessions/", {}, format="json")
    assert enrolled.status_code == 201, enrolled.content
    session = enrolled.json()["id"]
    url = client.get(f"/api/v1/evaluation/sessions/{session}/question/").json()["current"]["image"]["url"]
    store = httpx.Client()
    times = []
    for _ in range(fetches):
        started = time.perf_counter()
        response: Any = client.get(url)
        if response.status_code == 302:
            with store.stream("GET", response["Location"]) as fetched:
                next(fetched.iter_raw(1))
        else:
            next(iter(response.streaming_content))
            response.close()
        times.append((time.perf_counter() - started) * 1000)
    store.close()
    times.sort()
    return {
        "median_ms": statistics.median(times),
        "p95_ms": times[int(0.95 * (len(times) - 1))],
        "fetches": fetches,
    }


def render(results: dict[str, Any], args: argparse.Namespace) -> str:
    fs, s3 = results["filesystem"], results["SeaweedFS"]
    rows = [
        ("import with pixels (images/s)", fs["import"]["per_second"], s3["import"]["per_second"], ".1f"),
        (
            "vision system: first byte, median (ms)",
            fs["first_byte"]["median_ms"],
            s3["first_byte"]["median_ms"],
            ".2f",
        ),
        (
            "vision system: first byte, p95 (ms)",
            fs["first_byte"]["p95_ms"],
            s3["first_byte"]["p95_ms"],
            ".2f",
        ),
    ]
    lines = [
        "## Files on the filesystem against SeaweedFS (issue 49)",
        "",
        f"`python -m benchmarks.storage_speed --images {args.images} --fetches {args.fetches} --write` "
        f"(commit {commit()}; {machine()}; SeaweedFS `weed mini` on the same machine). An import of "
        f"{fs['import']['images']} synthetic scenes with their pictures in one process, and a vision "
        "system's reached image fetched through the API up to its first byte (with the bucket: the "
        "redirect, then the presigned URL from SeaweedFS).",
        "",
        "| | filesystem | SeaweedFS | SeaweedFS / filesystem |",
        "|---|---:|---:|---:|",
    ]
    for label, a, b, fmt in rows:
        lines.append(f"| {label} | {a:{fmt}} | {b:{fmt}} | {b / a:.2f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
