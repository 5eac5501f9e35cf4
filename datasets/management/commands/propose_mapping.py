import sys
from contextlib import ExitStack
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from annotations.selectors.collections import collection_find
from annotations.selectors.vocabularies import vocabulary_index
from datasets.formats import ReadContext, scene_format, scene_formats
from datasets.formats.proposal import count, propose
from datasets.management.commands.import_scenes import _zipped
from vtt_site.commands import PlatformCommand
from vtt_site.errors import ApplicationError


class Command(PlatformCommand):
    help = (
        "Propose a first mapping file (YAML) from the source's own frequencies: the top names per type "
        "with their counts, the attribute names seldom on one object together as candidate exclusive "
        "groups, and the rest to drop, for you to edit before the import. Bad entries of the source are "
        "read past, counted and listed with their places."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="The file, or a folder of the format's files.")
        parser.add_argument(
            "--collection", required=True, help="Id or name of the collection to import into."
        )
        parser.add_argument("--format", required=True, choices=[s.value for s in scene_formats() if s.mapped])
        parser.add_argument("--out", default="-", help="The file to write (default: standard output).")

    def handle(self, *args, file: Path, collection: str, format: str, out: str, **options):
        spec = scene_format(format)
        try:
            target = collection_find(reference=collection)
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        index = vocabulary_index(target.vocabulary)
        sizes = dict(
            ((n, (w, h)) for n, w, h in target.images.values_list("original_name", "width", "height"))
        )
        context = ReadContext(vocabulary=index.core, max_depth=settings.JSON_MAX_DEPTH, sizes=sizes)
        try:
            with ExitStack() as stack:
                handle = stack.enter_context(_zipped(file) if file.is_dir() else file.open("rb"))
                reading = spec.read_open(handle, context)  # type: ignore[misc]
                counted = count(reading.items)
        except OSError as exc:
            raise CommandError(f"Cannot read {exc.filename or file}: {exc.strerror}") from None
        for problem in counted.problems:
            self.stderr.write(f"{file}: {problem}")
        more = counted.bad - len(counted.problems)
        if more:
            self.stderr.write(f"{file}: and {more:,} more bad entr{'y' if more == 1 else 'ies'}.")
        if counted.bad and not counted.objects:  # images with no readable object: nothing to propose
            raise CommandError(f"No mapping proposed: nothing in {file} could be read (no object).")
        if counted.bad:
            self.stderr.write(
                f"Read past {counted.bad:,} bad entr{'y' if counted.bad == 1 else 'ies'} of {file}: the "
                f"proposal counts the {counted.images:,} image(s) read."
            )
        text = propose(counted, index.core, file.name)
        if out == "-":
            sys.stdout.write(text)
        else:
            Path(out).write_text(text, encoding="utf-8")
            self.stderr.write(
                f"Wrote the proposed mapping to {out}: edit it, then import with --mapping {out}."
            )
