import json
import sys
from contextlib import nullcontext
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotations.models import SceneFormat, Stage
from annotations.selectors.collections import collection_find
from annotations.selectors.exports import coco_export, jsonl_export
from vtt_site.errors import ApplicationError


class Command(BaseCommand):
    help = "Export the annotated images of a collection as JSON Lines scene graphs or COCO."

    def add_arguments(self, parser):
        parser.add_argument("--collection", required=True, help="Id or name of the collection.")
        parser.add_argument("--format", required=True, choices=SceneFormat.values)
        parser.add_argument(
            "--stage", choices=Stage.values, help="Only images in this stage (e.g. accepted)."
        )
        parser.add_argument("--out", required=True, help="The file to write, or - for standard output.")

    def handle(self, *args, collection: str, format: str, stage: str | None, out: str, **options):
        try:
            target = collection_find(reference=collection)
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        try:
            # Standard output is not ours to close.
            with nullcontext(sys.stdout) if out == "-" else Path(out).open("w", encoding="utf-8") as stream:
                count = self._write(stream, target, format, stage)
        except OSError as exc:
            raise CommandError(f"Cannot write {out}: {exc.strerror}") from None
        self.stderr.write(f"Wrote {count} image(s) of {target.name!r} to {out}.")

    def _write(self, stream, collection, format: str, stage: str | None) -> int:
        if format == SceneFormat.COCO:
            document = coco_export(collection=collection, stage=stage)
            json.dump(document, stream)
            return len(document["images"])
        lines = list(jsonl_export(collection=collection, stage=stage))
        stream.writelines(lines)
        return len(lines)
