"""The Visual Genome-size collection benchmarks.pages_speed serves: built once, kept in a database of its
own and reused run after run (building it took 14 minutes under a load of 7, mostly the import; the
pages are measured in three or four).

1. `migrate`, the default vocabulary, one user per role (password PASSWORD) and their memberships.
2. `benchmarks.vg_download`'s generated download of Visual Genome's size (108,077 images, 3.8 million
   objects in the source) imported as `manage.py import_scenes` does (`import_create`, then `import_run`,
   here in this process): the images, and the objects and relationships the mapping keeps.
3. The images spread over the queues as a collection at work would be (WORK_MIX: most accepted, some in
   review, the rest in annotation), and TEST_IMAGES of them put in the test split.
4. Published tests of TEST_IMAGES and BIG_TEST_IMAGES images, built row by row (tests.page_worlds: no engine, as the
   evaluation tests build theirs), and SYSTEMS vision systems that took it through the services and
   were scored: the test card and the leaderboard then have what they show.

Each step leaves a mark (the collection, the test), so that a run that stopped half-way goes on from
there and a finished one is reused as it is.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

MARK = "Visual Genome (pages benchmark)"
TEST_NAME = "Visual Genome pages test"
PASSWORD = "pages-benchmark"  # a throwaway database on the benchmark's own server
USERS = {
    "annotator": ("pages-annotator", "annotator"),
    "reviewer": ("pages-reviewer", "reviewer"),
    "operator": ("pages-operator", "operator"),
    "vision-system owner": ("pages-owner", None),
    "admin": ("pages-admin", None),
}
# Shares of the images by stage, from the lowest image id up (the queues then hold some of each split).
WORK_MIX = (("accepted", 0.6), ("review", 0.1), ("annotate", 0.3))
TEST_IMAGES = 100
# A second test the size of the (1,000 images), for the test card and the leaderboard.
BIG_TEST_NAME = "Visual Genome pages test, 1,000 images"
BIG_TEST_IMAGES = 1000
SYSTEMS = 3


def build(images: int, folder: Path) -> dict:
    """Build what is missing; what the collection holds, and how long each step took."""
    from django.core.management import call_command

    from annotations.models import Collection

    took: dict[str, float] = {}
    started = time.perf_counter()
    call_command("migrate", verbosity=0, interactive=False)
    users = make_users()
    took["migrate and users"] = time.perf_counter() - started
    collection = Collection.objects.filter(name=MARK).first()
    if collection is None:
        started = time.perf_counter()
        collection = import_download(images, folder, users)
        took["generate and import"] = time.perf_counter() - started
        started = time.perf_counter()
        spread_work(collection, users)
        took["spread over the queues"] = time.perf_counter() - started
    started = time.perf_counter()
    if make_test(collection, users):
        took["test and sessions"] = time.perf_counter() - started
    settle()
    return {"collection": collection.pk, "took": kept_times(folder, took), **sizes(collection)}


def kept_times(folder: Path, took: dict[str, float]) -> dict[str, float]:
    """The times of the steps built this run, added to those of the runs that built the others (kept
    beside the media), so that every run's report says how long the whole collection took to build."""
    import json

    path = folder / "built.json"
    kept = json.loads(path.read_text()) if path.exists() else {}
    for step, seconds in took.items():
        if step != "migrate and users":
            kept[step] = kept.get(step, 0.0) + seconds
    path.write_text(json.dumps(kept))
    return kept


def make_users() -> dict:
    from accounts.roles import Role
    from accounts.services import user_create_with_role

    return {
        role: user_create_with_role(username=name, password=PASSWORD, role=Role(role))
        for role, (name, _) in USERS.items()
    }


def import_download(images: int, folder: Path, users: dict):
    from annotations.models import MemberRole
    from annotations.services.collections import collection_create, membership_set
    from annotations.services.vocabularies import vocabulary_install_default
    from benchmarks.import_download import import_stored
    from benchmarks.vg_download import mapping_text, write_download
    from datasets.models import ImportJob
    from datasets.services.run import import_run

    vocabulary, _ = vocabulary_install_default()
    collection = collection_create(name=MARK + " (importing)", vocabulary=vocabulary)
    for role, (_, member_role) in USERS.items():
        if member_role:
            membership_set(collection=collection, user_id=users[role].pk, role=MemberRole(member_role))
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        path, mapping = Path(scratch) / "vg.zip", Path(scratch) / "mapping.json"
        mapping.write_text(mapping_text())
        written = write_download(path, images)
        print(f"generated {written.objects:,} objects in {written.seconds:.0f} s", file=sys.stderr)
        job = import_run(job_id=import_stored(collection, path, mapping).pk)
    if job.status != ImportJob.Status.DONE:
        sys.exit(f"The import did not finish: {job.status} {job.message}")
    collection.name = MARK
    collection.save(update_fields=["name"])
    return collection


def spread_work(collection, users: dict) -> None:
    """WORK_MIX by image id, in one UPDATE a stage; the first TEST_IMAGES accepted ones in the test split."""
    from django.db import connection

    ids = list(collection.images.order_by("pk").values_list("pk", flat=True))
    start = 0
    with connection.cursor() as cursor:
        for stage, share in WORK_MIX:
            end = len(ids) if stage == WORK_MIX[-1][0] else start + round(share * len(ids))
            cursor.execute(
                "UPDATE annotations_image SET stage = %s, annotator_id = %s, reviewed_by_id = %s "
                "WHERE collection_id = %s AND id BETWEEN %s AND %s",
                [
                    stage,
                    users["annotator"].pk if stage != "annotate" else None,
                    users["reviewer"].pk if stage == "accepted" else None,
                    collection.pk,
                    ids[start],
                    ids[end - 1],
                ],
            )
            start = end
        cursor.execute("UPDATE annotations_image SET split = 'test' WHERE id = ANY(%s)", [ids[:TEST_IMAGES]])


def settle() -> None:
    """What autovacuum does to a database at rest: the statistics the planner and the admin's estimates
    read, and the visibility map that lets a page's ids be read from an index alone (after the bulk
    import and the UPDATEs above; a no-op once done)."""
    from django.db import connection

    with connection.cursor() as cursor:
        for table in ("annotations_image", "annotations_objectannotation"):
            cursor.execute(f"VACUUM ANALYZE {table}")


def make_test(collection, users: dict) -> bool:
    """The published test and its scored sessions; False when they were there already."""
    from evaluation.services.systems import system_create
    from tests.page_worlds import bulk_test, scored_session
    from truthing.models import Test

    made = False
    for name, count in ((TEST_NAME, TEST_IMAGES), (BIG_TEST_NAME, BIG_TEST_IMAGES)):
        if Test.objects.filter(name=name).exists():
            continue
        # Accepted images by id, the test split first, then training ones (no engine reads them here).
        images = collection.images.filter(stage="accepted").order_by("split", "pk")[:count]
        test = bulk_test(list(images), name=name)
        for number in range(SYSTEMS):
            system = system_create(owner=users["vision-system owner"], name=f"{name}: system {number}")
            scored_session(system, test, answer=number % 2 == 0)
        made = True
    return made


def sizes(collection) -> dict:
    from annotations.models import ObjectAnnotation

    return {
        "images": collection.images.count(),
        "objects": ObjectAnnotation.objects.filter(image__collection=collection).count(),
        "by stage": stage_counts(collection),
    }


def stage_counts(collection) -> dict[str, int]:
    from django.db.models import Count

    rows = collection.images.values("stage").annotate(n=Count("pk")).order_by("stage")
    return {row["stage"]: row["n"] for row in rows}
