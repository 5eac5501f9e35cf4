"""The last phase of an import that came with an images archive: the pixels given to its images."""

from __future__ import annotations

import os

from annotations.files import FileLimits, InflationBudget, Refused, check_image, zip_entries
from annotations.models import Image
from annotations.services.images import image_pixels_attach, limits_from_settings
from datasets.conf import conf
from datasets.formats.records import ImportReport
from datasets.models import ImportJob
from datasets.services.common import failed
from vtt_site.jobs import job_progress

PROGRESS_EVERY = 500  # archive entries between two commits of the count attached


def attach_pixels(job: ImportJob) -> None:
    """Give the collection's images that have no pixels those of the images archive, matched by file
    name (`2370799.jpg`), else by the image's id in its source (`2370799.png`). Image by image, each in
    its own transaction: a run that takes over goes on where this one stopped (an image with pixels is
    not matched again). Every file that matched nothing, or whose pixels were refused, is reported."""
    collection = job.collection
    waiting = dict(collection.images.filter(file="").values_list("original_name", "id"))
    by_id = dict(collection.images.filter(file="").exclude(source_id="").values_list("source_id", "id"))
    by_stem = {os.path.splitext(name)[0]: pk for name, pk in waiting.items()}
    done = set(collection.images.exclude(file="").values_list("original_name", flat=True))
    report = ImportReport()
    attached = 0
    limits = import_image_limits()
    with job.images.open("rb") as handle:
        for number, (entry, payload) in enumerate(
            zip_entries(handle, limits, limits.files, InflationBudget(limits.zip_bytes)), start=1
        ):
            name = os.path.basename(entry or job.images.name)
            stem = os.path.splitext(name)[0]
            pk = waiting.get(name) or by_id.get(stem) or by_stem.get(stem)
            if isinstance(payload, Refused) and not entry:
                raise failed(f"The images archive cannot be read: {payload.message}")
            if pk is None:
                why = "images that have pixels already" if name in done else "files that match no image"
                report.add(f"pixels: {why}", name)
                continue
            try:
                if isinstance(payload, Refused):
                    raise payload
                image_pixels_attach(image=Image.objects.get(pk=pk), checked=check_image(payload, limits))
            except Refused as refused:
                report.add("pixels: files refused", f"{name}: {refused.message}")
                continue
            attached += 1
            report.add("pixels: attached", "images")
            if number % PROGRESS_EVERY == 0:
                job_progress(job, pixels_attached=job.pixels_attached + attached)
                attached = 0
    missing = collection.images.filter(file="").values_list("original_name", flat=True)
    for name in missing.iterator():
        report.add("pixels: images still without pixels", name)
    job_progress(job, pixels_attached=job.pixels_attached + attached, report=[*job.report, *report.as_list()])


def import_image_limits() -> FileLimits:
    """An import's images archive holds a download's images (Visual Genome: 108,077, 15 GB): each image
    is checked as an upload is, but the archive is not held to an upload's count and size."""
    limits = limits_from_settings()
    return FileLimits(
        image_bytes=limits.image_bytes,
        pixels=limits.pixels,
        zip_bytes=conf.IMPORT_IMAGES_MAX_BYTES,
        files=conf.IMPORT_IMAGES_MAX_FILES,
    )
