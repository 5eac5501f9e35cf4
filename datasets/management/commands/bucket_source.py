from django.core.management.base import CommandError

from annotations.models import Split
from annotations.selectors.collections import collection_find
from datasets.models import BucketSource
from datasets.services.bucket import bucket_source_set, bucket_source_sync
from vtt_site.commands import PlatformCommand


class Command(PlatformCommand):
    help = (
        "Fill a collection from a bucket (source storage): point it at a bucket and prefix, or sync the one "
        "it has: new images are added, removed ones reported (docs/storage.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--collection", required=True, help="Id or name of the collection.")
        parser.add_argument("--bucket", help="Point the collection at this bucket (else: sync its source).")
        parser.add_argument("--prefix", default="", help="Only the objects under this prefix.")
        parser.add_argument(
            "--no-copy",
            action="store_true",
            help="Use the images where they are (the platform's bucket only).",
        )
        parser.add_argument("--split", choices=Split.values, default=Split.TRAIN)

    def handle(
        self, *args, collection: str, bucket: str | None, prefix: str, no_copy: bool, split: str, **options
    ):
        target = collection_find(reference=collection)
        if bucket:
            source = bucket_source_set(
                collection=target, bucket=bucket, prefix=prefix, copy=not no_copy, split=split
            )
        else:
            found = BucketSource.objects.filter(collection=target).first()
            if found is None:
                raise CommandError(f"{target.name!r} has no bucket source: give --bucket.")
            source = found
        report = bucket_source_sync(source=source)
        for key, why in report.refused:
            self.stdout.write(f"refused: {key}: {why}")
        for key in report.removed:
            self.stdout.write(f"removed from the bucket: {key}")
        self.stderr.write(
            f"{source}: {report.listed} image(s) listed, {report.added} added, {report.present} added before, "
            f"{len(report.refused)} refused, {len(report.removed)} removed from the bucket since."
        )
