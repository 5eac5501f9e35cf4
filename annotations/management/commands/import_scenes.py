import tempfile
import zipfile
from contextlib import ExitStack
from pathlib import Path

from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from annotations.formats import format_values, scene_formats
from annotations.models import ImportJob, Split
from annotations.selectors.collections import collection_find
from annotations.services.imports import import_create, import_run
from vtt_site.errors import ApplicationError

SHOWN = 5  # names shown per line of the report


class Command(BaseCommand):
    help = (
        "Import scene graphs ("
        + ", ".join(spec.name for spec in scene_formats())
        + ") into a collection, now. All or nothing: on any bad record every one is printed and nothing "
        "is imported. A folder is read as a zip of its files (Visual Genome's, Open Images')."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="The file, or a folder of the format's files.")
        parser.add_argument("--collection", required=True, help="Id or name of the collection.")
        parser.add_argument("--format", required=True, choices=format_values())
        parser.add_argument("--split", choices=Split.values, default=Split.TRAIN, help="Split of new images.")
        parser.add_argument("--mapping", type=Path, help="YAML or JSON mapping of an open vocabulary.")
        completeness = parser.add_mutually_exclusive_group()
        completeness.add_argument(
            "--complete",
            dest="complete",
            action="store_true",
            default=None,
            help="The source is complete: its images go to review (the default of jsonl and coco).",
        )
        completeness.add_argument(
            "--not-complete",
            dest="complete",
            action="store_false",
            help="Its images go to the annotation queue as drafts (the default of the other formats).",
        )
        parser.add_argument(
            "--mark-reviewed",
            action="store_true",
            help="Accept the annotations at once (a reviewed dataset). Only from a complete source: with "
            "--complete for " + ", ".join(spec.value for spec in scene_formats() if not spec.complete) + ".",
        )

    def handle(self, *args, file: Path, collection: str, mapping: Path | str | None, **options):
        file, mapping = Path(file), Path(mapping) if mapping else None
        try:
            target = collection_find(reference=collection)
            with ExitStack() as stack:
                handle = stack.enter_context(_zipped(file) if file.is_dir() else file.open("rb"))
                rules = stack.enter_context(mapping.open("rb")) if mapping else None
                job = import_create(
                    collection=target,
                    format=options["format"],
                    file=File(handle, name=file.name),
                    split=options["split"],
                    mark_reviewed=options["mark_reviewed"],
                    complete=options["complete"],
                    mapping=File(rules, name=mapping.name) if rules and mapping else None,
                    start=False,
                )
        except OSError as exc:
            raise CommandError(f"Cannot read {exc.filename or file}: {exc.strerror}") from None
        except ApplicationError as exc:
            for field, messages in exc.fields.items():
                where = {"mapping": mapping, "mark_reviewed": "--mark-reviewed"}.get(field, file)
                for message in messages:
                    self.stderr.write(f"{where}: {message}")
            raise CommandError(exc.message) from None
        job = import_run(job_id=job.pk)
        for line in report_lines(job.report):
            self.stdout.write(line)
        if job.status != ImportJob.Status.DONE:
            for error in job.errors:
                where = f"line {error['line']}: " if error["line"] is not None else ""
                self.stderr.write(f"{file}: {where}{error['message']}")
            raise CommandError(f"Nothing was imported: {len(job.errors)} problem(s) in {file}.")
        where = "review" if job.complete else "the annotation queue, as drafts to complete"
        self.stdout.write(
            f"Imported {job.lines_total} scene graph(s) into {target.name!r}: "
            f"{job.images_created} new image(s), {job.images_updated} existing image(s) annotated"
            + ("." if job.mark_reviewed else f"; they are in {where}.")
        )


def report_lines(report: list[dict]) -> list[str]:
    """One line per section of an import's report: its total, then its first names with their counts."""
    lines = []
    for counts in report:
        section = counts["section"]
        names = ", ".join(f"{name} {count:,}" for name, count in counts["top"][:SHOWN])
        more = counts["total"] - sum(count for _, count in counts["top"][:SHOWN])
        lines.append(f"{section}: {counts['total']:,} ({names}{f', others {more:,}' if more else ''})")
    return lines


def _zipped(folder: Path):
    """The folder's files (not its subfolders) in a scratch zip, stored uncompressed."""
    scratch = tempfile.TemporaryFile()  # noqa: SIM115 (the caller's ExitStack closes it)
    with zipfile.ZipFile(scratch, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        for path in sorted(folder.iterdir()):
            if path.is_file():
                archive.write(path, path.name)
    scratch.seek(0)
    return scratch
