"""Helpers of the format tests: fixtures zipped as uploads, imports run now, rows read back."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from django.core.files.base import ContentFile

from datasets.formats import scene_format
from datasets.models import ImportJob
from datasets.selectors.exports import scene_export
from datasets.services.creation import import_create
from datasets.services.run import import_run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "formats"
MAPPING = FIXTURES / "mapping.yaml"


def zipped(folder: Path, rename: dict[str, str] | None = None, skip: tuple[str, ...] = ()) -> bytes:
    """The folder's files in a zip, inside a subfolder as a download would have them."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(folder.iterdir()):
            if path.is_file() and path.name not in skip:
                archive.write(path, f"download/{(rename or {}).get(path.name, path.name)}")
    return buffer.getvalue()


def run_import(
    collection, fmt: str, data: bytes, mapping: Path | bytes | None = None, **options
) -> ImportJob:
    rules = mapping.read_bytes() if isinstance(mapping, Path) else mapping
    job = import_create(
        collection=collection,
        format=fmt,
        file=ContentFile(data, name=f"upload.{scene_format(fmt).extension}"),
        mapping=ContentFile(rules, name="mapping.yaml") if rules is not None else None,
        start=False,
        **options,
    )
    return import_run(job_id=job.pk)


def exported(collection, fmt: str, stage: str | None = None) -> bytes:
    return b"".join(scene_export(collection=collection, scene_format=scene_format(fmt), stage=stage))


def rows(collection) -> list[dict]:
    """The collection's annotations as our own records, image by image in name order."""
    records = [json.loads(line) for line in exported(collection, "jsonl").decode().splitlines()]
    return sorted(records, key=lambda record: record["image"])


def without_source(records: list[dict]) -> list[dict]:
    """Records without the source's identities: what a round trip through our own export keeps of a
    collection that came from no source (the export's ids become the new collection's source ids)."""
    return [
        {k: v for k, v in r.items() if k != "source_id"}
        | {"objects": [{k: v for k, v in o.items() if k != "source"} for o in r["objects"]]}
        for r in records
    ]
