from django.core.management.base import CommandError

from vtt_site.commands import PlatformCommand
from vtt_site.storage_sweep import storage_sweep


class Command(PlatformCommand):
    help = (
        "Find the stored files no row names (a write killed between the object and its row) and the rows "
        "whose file is gone; with --remove, delete the first kind (docs/storage.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--grace",
            type=float,
            default=3600.0,
            help="Seconds: a file younger than this may belong to a write still under way (default 3600).",
        )
        parser.add_argument("--remove", action="store_true", help="Delete the files no row names.")
        parser.add_argument(
            "--check", action="store_true", help="Exit with status 1 when anything is found (for monitoring)."
        )

    def handle(self, *args, grace: float, remove: bool, check: bool, **options):
        if grace < 0:
            raise CommandError("--grace must be 0 or more seconds.")
        report = storage_sweep(grace_seconds=grace, remove=remove)
        for name in report.orphans:
            self.stdout.write(f"no row: {name}{' (removed)' if remove else ''}")
        for name in report.missing:
            self.stdout.write(f"no file: {name}")
        self.stderr.write(
            f"{len(report.orphans)} file(s) no row names"
            + (f", {report.removed} removed" if remove else "")
            + f"; {len(report.missing)} row(s) whose file is gone; {report.young} file(s) younger than "
            f"{grace:g} s left alone."
        )
        if check and not report.clean:
            raise CommandError("The storage and the database disagree (listed above).")
