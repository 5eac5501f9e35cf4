import tempfile
import zipfile
from contextlib import ExitStack
from pathlib import Path

from django.core.files import File
from django.core.management.base import CommandError

from annotations.models import Collection, Split
from annotations.selectors.collections import collection_find
from datasets.formats import format_values, scene_formats
from datasets.models import AcceptedImages, ImportJob
from datasets.services.creation import import_cancel, import_create
from datasets.services.run import import_run
from vtt_site.commands import PlatformCommand
from vtt_site.errors import ApplicationError

SHOWN = 5  # names shown per line of the report


class Command(PlatformCommand):
    help = (
        "Import scene graphs ("
        + ", ".join(spec.name for spec in scene_formats())
        + ") into a collection, now. All or nothing: on any bad record every one is printed and nothing "
        "is imported (with --strict, or for jsonl and coco); an open-vocabulary download's good entries go "
        "in and every refused one is printed, unless too many are bad. A folder is read as a zip of its "
        "files (Visual Genome's, Open Images'). Images whose stored annotation equals the imported one are "
        "left as they are; accepted images are kept as they are unless --replace-accepted. --preview says "
        "what would change and writes nothing."
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
        parser.add_argument(
            "--images",
            type=Path,
            help="The images, a folder or a zip: each matched to its scene graph by file name, else by the "
            "image's id in the source.",
        )
        parser.add_argument(
            "--strict",
            action="store_true",
            help="All or nothing: one bad entry refuses the whole file. Otherwise the good entries of an "
            "open-vocabulary download go in and every refused one is printed, unless too many are bad.",
        )
        parser.add_argument(
            "--add-relationship-objects",
            action="store_true",
            help="Make objects (marked as added) of relationship ends that have no box of their own; "
            "otherwise those relationships are dropped and counted.",
        )
        parser.add_argument(
            "--preview",
            action="store_true",
            help="Say what the import would do (images created, changed, unchanged; accepted images "
            "changed) and write nothing.",
        )
        parser.add_argument(
            "--replace-accepted",
            action="store_true",
            help="Replace the annotations of accepted images too (otherwise they are kept as they are).",
        )

    def handle(
        self,
        *args,
        file: Path,
        collection: str,
        mapping: Path | str | None,
        images: Path | str | None,
        **options,
    ):
        file = Path(file)
        target = collection_find(reference=collection)
        job = self._created(
            target, file, Path(mapping) if mapping else None, Path(images) if images else None, options
        )
        job = import_run(job_id=job.pk)
        for line in report_lines(job.report):
            self.stdout.write(line)
        if job.status == ImportJob.Status.PREVIEWED:
            self._previewed(job, file)
            return
        if job.status != ImportJob.Status.DONE:
            for error in job.errors:
                where = f"line {error['line']}: " if error["line"] is not None else ""
                self.stderr.write(f"{file}: {where}{error['message']}")
            raise CommandError(f"{job.message or 'Nothing was imported.'} ({file})")
        self._refused(job, file)
        self._imported(job, target.name)

    def _created(
        self, target: Collection, file: Path, mapping: Path | None, pictures: Path | None, options: dict
    ) -> ImportJob:
        """The job, made from the files (a folder read as a zip of its files), not queued: this process
        runs it. A file that cannot be read, or a refusal of the service, ends the command."""
        try:
            with ExitStack() as stack:
                handle = stack.enter_context(_zipped(file) if file.is_dir() else file.open("rb"))
                rules = stack.enter_context(mapping.open("rb")) if mapping else None
                archive = (
                    stack.enter_context(_zipped(pictures) if pictures.is_dir() else pictures.open("rb"))
                    if pictures
                    else None
                )
                return import_create(
                    collection=target,
                    format=options["format"],
                    file=File(handle, name=file.name),
                    split=options["split"],
                    mark_reviewed=options["mark_reviewed"],
                    complete=options["complete"],
                    mapping=File(rules, name=mapping.name) if rules and mapping else None,
                    images=File(archive, name="images.zip") if archive else None,
                    strict=options["strict"],
                    add_relationship_objects=options["add_relationship_objects"],
                    accepted=_accepted(options),
                    preview=options["preview"],
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

    def _imported(self, job: ImportJob, name: str) -> None:
        """What a finished import wrote, and where its images went."""
        where = "review" if job.complete else "the annotation queue, as drafts to complete"
        self.stdout.write(
            f"Imported {job.lines_total} scene graph(s) into {name!r}: "
            f"{job.images_created} new image(s), {job.images_updated} existing image(s) annotated, "
            f"{job.images_unchanged} unchanged"
            + ("." if job.mark_reviewed else f"; they are in {where}.")
            + (f" {job.entries_refused:,} entries refused (above)." if job.entries_refused else "")
            + (f" {job.pixels_attached:,} image(s) given their pixels." if job.images else "")
        )
        if job.images_kept:
            self.stdout.write(
                f"Kept {job.images_kept} accepted image(s) as they were, though the file changes their "
                "annotation; --replace-accepted replaces them, --preview lists them."
            )

    def _refused(self, job: ImportJob, file: Path) -> None:
        """The entries refused from a download whose other entries go in."""
        for error in job.errors:
            self.stderr.write(f"{file}: refused: {error['message']}")
        if job.entries_refused > len(job.errors):
            self.stderr.write(f"{file}: ... and {job.entries_refused - len(job.errors):,} more refused")

    def _previewed(self, job: ImportJob, file: Path) -> None:
        """Print the plan of a job that stopped before writing, and end it: a command cannot be asked."""
        import_cancel(job=job)
        self._refused(job, file)
        for line in plan_lines(job.plan):
            self.stdout.write(line)
        if not job.preview:  # the collection changed under the import while it ran
            raise CommandError(f"{job.message} Run the command again.")
        self.stdout.write(f"Preview of {file}: nothing was imported.")


def _accepted(options: dict) -> str:
    """A preview asks for no choice; otherwise accepted images are kept unless told to replace them."""
    if options["preview"]:
        return ""
    return AcceptedImages.REPLACE if options["replace_accepted"] else AcceptedImages.KEEP


def plan_lines(plan: dict) -> list[str]:
    """What an import would do, for a person reading a terminal."""
    lines = [
        f"Would create {plan['created']:,} image(s) and change the annotation of {plan['changed']:,} "
        f"existing image(s) ({plan['unannotated']:,} not annotated yet); {plan['unchanged']:,} unchanged."
    ]
    if plan["accepted"]:
        more = plan["accepted"] - len(plan["accepted_names"])
        lines.append(
            f"{plan['accepted']:,} accepted image(s) would change: "
            + ", ".join(plan["accepted_names"])
            + (f" and {more:,} more" if more else "")
            + ". Without --replace-accepted they are kept as they are."
        )
    return lines


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
