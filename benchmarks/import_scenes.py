"""How long importing 10,000 scene graphs takes (issue 3 asks for under a minute on this machine).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt .venv/bin/python -m benchmarks.import_scenes \
        [--images 10000] [--write]

Synthetic street scenes from `demo.synthetic.generate_scenes` are written as JSON Lines and
`datasets.services.run.import_run` is timed on them: every line validated, then the
all-or-nothing write in one transaction. It runs in a scratch database created for the run (named after
the configured one, with the suffix `_import_benchmark`) and dropped after it. `--write` puts the result
in its section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
django.setup()

from django.core.files import File  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from annotations.models import ObjectAnnotation, RelationshipAnnotation  # noqa: E402
from annotations.services.collections import collection_create  # noqa: E402
from annotations.services.vocabularies import vocabulary_install_default  # noqa: E402
from benchmarks.report import commit, machine, write_section  # noqa: E402
from datasets.formats import jsonl_line  # noqa: E402
from datasets.models import ImportJob  # noqa: E402
from datasets.services.creation import import_create  # noqa: E402
from datasets.services.run import import_run  # noqa: E402
from demo.synthetic import generate_scenes  # noqa: E402

TARGET_SECONDS = 60


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", action="store_true", help="Write the result into docs/benchmarks.md.")
    args = parser.parse_args()

    # Never the database the test suite uses (test_<name>), which may be busy at the same moment.
    database = connection.settings_dict
    database["TEST"] = {**database.get("TEST", {}), "NAME": f"{database['NAME']}_import_benchmark"}
    scratch = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        with tempfile.TemporaryDirectory() as media, override_settings(MEDIA_ROOT=media):
            result = run(args.images, args.seed, Path(media))
    finally:
        connection.creation.destroy_test_db(scratch, verbosity=0)
    report = render(result, args.images)
    print(report)
    if args.write:
        write_section("import-scenes", report)


def run(images: int, seed: int, folder: Path) -> dict:
    started = time.perf_counter()
    path = folder / "scenes.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        handle.writelines(jsonl_line(scene) for scene in generate_scenes(images, seed, prefix="bench"))
    generated = time.perf_counter() - started

    vocabulary, _ = vocabulary_install_default()
    collection = collection_create(name="import benchmark", vocabulary=vocabulary)
    with path.open("rb") as handle:
        job = import_create(
            collection=collection, format="jsonl", file=File(handle, name=path.name), start=False
        )
    started = time.perf_counter()
    job = import_run(job_id=job.pk)
    seconds = time.perf_counter() - started
    if job.status != ImportJob.Status.DONE:
        sys.exit(f"The import failed: {job.errors[:5]}")
    return {
        "images": job.images_created,
        "objects": ObjectAnnotation.objects.count(),
        "relationships": RelationshipAnnotation.objects.count(),
        "megabytes": path.stat().st_size / 1e6,
        "generated": generated,
        "seconds": seconds,
        "database": f"{connection.display_name} {connection.get_database_version()[0]}",
    }


def render(result: dict, images: int) -> str:
    return f"""## Importing scene graphs

Command: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt python -m benchmarks.import_scenes --images {images}`
(commit {commit()}, {machine()}, {result["database"]}).

- **{result["seconds"]:.1f} s** to import {result["images"]:,} synthetic scene graphs: {result["objects"]:,} objects,
  {result["relationships"]:,} relationships, {result["megabytes"]:.0f} MB of JSON Lines. Every line is validated
  against the vocabulary, then everything is written in one transaction. Target: under {TARGET_SECONDS} s.
- Generating the scene graphs beforehand (not part of the figure): {result["generated"]:.1f} s.
"""


if __name__ == "__main__":
    main()
