from django.core.management.base import CommandError

from vtt_site.commands import PlatformCommand
from vtt_site.storage_move import ChecksumMismatch, bucket_storage, filesystem_storage, media_move


class Command(PlatformCommand):
    help = (
        "Copy every file between the filesystem (MEDIA_ROOT) and the bucket (S3_*), checking each copy's "
        "checksum; run it again to finish a move that stopped (docs/storage.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--to",
            required=True,
            choices=["bucket", "filesystem"],
            help="bucket: from MEDIA_ROOT to the bucket; filesystem: back.",
        )
        parser.add_argument("--dry-run", action="store_true", help="Say what would be copied; copy nothing.")
        parser.add_argument("--verbose-files", action="store_true", help="One line per file.")

    def handle(self, *args, to: str, dry_run: bool, verbose_files: bool, **options):
        source, target = (filesystem_storage(), bucket_storage())
        if to == "filesystem":
            source, target = target, source

        def each(name: str, what: str) -> None:
            if verbose_files:
                self.stdout.write(f"{what}: {name}")

        try:
            report = media_move(source=source, target=target, dry_run=dry_run, each=each)
        except ChecksumMismatch as exc:
            raise CommandError(str(exc)) from None
        would = "would be " if dry_run else ""
        self.stderr.write(
            f"To the {to}: {report.copied} file(s) {would}copied, {report.replaced} {would}replaced (their "
            f"checksum differed), {report.present} already there with the same checksum; "
            f"{report.bytes:,} bytes written."
            + (" Switch MEDIA_STORAGE once the move is complete." if not dry_run else "")
        )
