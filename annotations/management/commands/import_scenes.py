from pathlib import Path

from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from annotations.formats import format_values, scene_formats
from annotations.models import ImportJob, Split
from annotations.selectors.collections import collection_find
from annotations.services.imports import import_create, import_run
from vtt_site.errors import ApplicationError


class Command(BaseCommand):
    help = (
        "Import scene graphs ("
        + " or ".join(spec.name for spec in scene_formats())
        + ") into a collection, now. All or nothing: on any bad record every one is printed and nothing "
        "is imported."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--collection", required=True, help="Id or name of the collection.")
        parser.add_argument("--format", required=True, choices=format_values())
        parser.add_argument("--split", choices=Split.values, default=Split.TRAIN, help="Split of new images.")
        parser.add_argument(
            "--mark-reviewed",
            action="store_true",
            help="Accept the annotations at once (a reviewed dataset).",
        )

    def handle(
        self, *args, file: Path, collection: str, format: str, split: str, mark_reviewed: bool, **options
    ):
        try:
            target = collection_find(reference=collection)
            with file.open("rb") as handle:
                job = import_create(
                    collection=target,
                    format=format,
                    file=File(handle, name=file.name),
                    split=split,
                    mark_reviewed=mark_reviewed,
                    start=False,
                )
        except OSError as exc:
            raise CommandError(f"Cannot read {file}: {exc.strerror}") from None
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        job = import_run(job_id=job.pk)
        if job.status != ImportJob.Status.DONE:
            for error in job.errors:
                where = f"line {error['line']}: " if error["line"] is not None else ""
                self.stderr.write(f"{file}: {where}{error['message']}")
            raise CommandError(f"Nothing was imported: {len(job.errors)} problem(s) in {file}.")
        self.stdout.write(
            f"Imported {job.lines_total} scene graph(s) into {target.name!r}: "
            f"{job.images_created} new image(s), {job.images_updated} existing image(s) annotated."
        )
