import sys
from contextlib import nullcontext
from pathlib import Path

from django.core.management.base import CommandError

from annotations.models import Stage
from annotations.selectors.collections import collection_find
from datasets.formats import format_values, scene_format, scene_formats
from datasets.selectors.exports import export_images, scene_export
from vtt_site.commands import PlatformCommand


class Command(PlatformCommand):
    help = "Export the annotated images of a collection as " + " or ".join(
        spec.name for spec in scene_formats()
    )

    def add_arguments(self, parser):
        parser.add_argument("--collection", required=True, help="Id or name of the collection.")
        parser.add_argument("--format", required=True, choices=format_values())
        parser.add_argument(
            "--stage", choices=Stage.values, help="Only images in this stage (e.g. accepted)."
        )
        parser.add_argument("--out", required=True, help="The file to write, or - for standard output.")

    def handle(self, *args, collection: str, format: str, stage: str | None, out: str, **options):
        target = collection_find(reference=collection)
        spec = scene_format(format)
        try:
            # Standard output is not ours to close.
            with nullcontext(sys.stdout.buffer) if out == "-" else Path(out).open("wb") as stream:
                stream.writelines(scene_export(collection=target, scene_format=spec, stage=stage))
        except OSError as exc:
            raise CommandError(f"Cannot write {out}: {exc.strerror}") from None
        count = export_images(collection=target, stage=stage).count()
        self.stderr.write(f"Wrote {count} image(s) of {target.name!r} to {out}.")
