"""The crowd's quality through the services the pages use (issue 48), on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt .venv/bin/python -m benchmarks.crowd_services \
        [--scenes 200] [--gold 30] [--test 200] [--seed 11] [--write]

`benchmarks.crowd_quality` measures the statistics (crowd.consensus) directly; this measures the app.
The truth and the five simulated annotators' versions of every scene are `crowd_quality`'s (its
`World`: the demo's synthetic street scenes, `benchmarks.crowd_simulation`, one annotator a spammer).
In a scratch database (suffix `_crowd_benchmark`, dropped afterwards), for 3 and 5 annotators per image
and for each vote, a collection of the default vocabulary with crowd settings (the app's defaults but
the overlap), five annotator users and a reviewer:

1. `--gold` scenes are put on the crowd queue; an earlier crowd (five more users drawing as the five
   do), each in a random order, takes the next image (`crowd.services.queue.copy_next`), saves their
   version of its scene and submits it (`crowd.services.copies`); the last copy merges the image as on
   the pages. (The queue never gives anyone a gold image they drew: with five per image, the five would
   have drawn every gold image themselves.) The reviewer takes each
   merge (`merge_review_next`), corrects it to the truth (`merge_correct`), accepts it and marks it gold
   (`gold_mark`).
2. `--scenes` more scenes go on the queue with automatic acceptance on; the five work through them
   as before, the queue mixing the gold in at the collection's rate, scoring it and pausing whoever
   the rule pauses. "majority": the reliability is never estimated (`CROWD_RELIABILITY_EVERY` out of
   reach); "weighted": as the app does it, every `CROWD_RELIABILITY_EVERY` merges (the task runs eagerly,
   in this process), each merge weighing annotators by the last estimate stored.

Everything is then read from the stored rows: the merges (`ImageMerge.merged`, whether reviewed or not),
the copies, the gold scores and the pauses. One annotator per image has no crowd queue in the app (an
overlap of 1 is today's flow): its row is the first copy of each image of the 3-per-image weighted run.
The engine is fitted on the stored merges and on those first copies, as in `crowd_quality`.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
django.setup()

import numpy as np  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from accounts.roles import Role  # noqa: E402
from accounts.services import user_create_with_role  # noqa: E402
from annotations.models import Image, MemberRole, Stage  # noqa: E402
from annotations.services.collections import collection_create, membership_set  # noqa: E402
from annotations.services.vocabularies import vocabulary_install_default  # noqa: E402
from benchmarks.crowd_quality import World, engine_row  # noqa: E402
from benchmarks.crowd_services_report import render  # noqa: E402
from benchmarks.crowd_simulation import CROWD, Annotator, scene_document  # noqa: E402
from benchmarks.engine_quality import load_scenes  # noqa: E402
from benchmarks.report import publish  # noqa: E402
from crowd.models import Copy, CopyState, GoldScore, ImageMerge, MergeState, Pause  # noqa: E402
from crowd.services.copies import copy_save, copy_submit  # noqa: E402
from crowd.services.gold import gold_mark  # noqa: E402
from crowd.services.queue import copy_next  # noqa: E402
from crowd.services.review import merge_accept, merge_correct, merge_review_next  # noqa: E402
from crowd.services.settings import crowd_settings_update  # noqa: E402
from crowd.services.versions import version_of  # noqa: E402
from kernel.scene import parse_scene  # noqa: E402
from vtt_site.celery import app as celery_app  # noqa: E402
from vtt_site.errors import PermissionDeniedError  # noqa: E402

RUNS = ((3, "majority"), (3, "weighted"), (5, "majority"), (5, "weighted"))
NEVER = 10**9  # merges between two reliability estimates: never


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scenes", type=int, default=200)
    parser.add_argument("--gold", type=int, default=30, help="scenes reviewed to the truth and marked gold")
    parser.add_argument("--test", type=int, default=200, help="held-out scenes for the engine-p guesser")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--write", action="store_true", help="write the section into docs/benchmarks.md")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("Needs DATABASE_URL (PostgreSQL): the queue's locks are PostgreSQL's.")
    database = connection.settings_dict
    database["TEST"] = {**database.get("TEST", {}), "NAME": f"{database['NAME']}_crowd_benchmark"}
    scratch = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    celery_app.conf.task_always_eager = True  # the reliability refresh runs here, when the app sends it
    try:
        with (
            tempfile.TemporaryDirectory() as media,
            override_settings(MEDIA_ROOT=media, TASKS_IN_THREADS=False),
        ):
            result = run(args)
    finally:
        connection.close()
        connection.creation.destroy_test_db(scratch, verbosity=0)
    publish(
        "benchmarks.crowd_services", "crowd-services", lambda command: render(command, result), args.write
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    started = time.perf_counter()
    world = World(args.gold + args.scenes, args.seed)  # the first `--gold` scenes become the gold
    vocabulary, _ = vocabulary_install_default()
    people = {
        a.name: user_create_with_role(username=a.name, password=None, role=Role.ANNOTATOR) for a in CROWD
    }
    # An earlier crowd who draws the gold images (as the five would), so that the five never had them.
    earlier = {
        a.name: user_create_with_role(username=f"earlier-{a.name}", password=None, role=Role.ANNOTATOR)
        for a in CROWD
    }
    reviewer = user_create_with_role(username="reviewer", password=None, role=Role.REVIEWER)
    runs = {}
    for seats, vote in RUNS:
        every = {} if vote == "weighted" else {"CROWD_RELIABILITY_EVERY": NEVER}
        with override_settings(**every):
            runs[(seats, vote)] = crowd_run(world, vocabulary, (people, earlier), reviewer, seats, vote, args)
        print(f"{seats} per image, {vote}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    main_run = runs[(3, "weighted")]
    held_out = load_scenes("street", world.vocabulary, args.test, seed=2)
    trainings = {
        "the truth (for reference)": world.scenes[args.gold :],
        "the stored merges, 3 per image, weighted": main_run["merged_scenes"],
        "one annotator per image (each image's first copy)": main_run["first_scenes"],
    }
    engine = [engine_row(name, world.vocabulary, train, held_out) for name, train in trainings.items()]
    return {"args": args, "runs": runs, "engine": engine, "seconds": time.perf_counter() - started}


def crowd_run(world: World, vocabulary, crowds, reviewer, seats: int, vote: str, args) -> dict[str, Any]:
    people, earlier = crowds
    collection = collection_create(name=f"crowd {seats} {vote}", vocabulary=vocabulary)
    for user in [*people.values(), *earlier.values()]:
        membership_set(collection=collection, user_id=user.pk, role=MemberRole.ANNOTATOR)
    membership_set(collection=collection, user_id=reviewer.pk, role=MemberRole.REVIEWER)
    crowd_settings_update(collection=collection, values={"overlap": seats, "auto_accept": False})
    rng = np.random.default_rng(args.seed + seats)
    draws = random.Random(args.seed)  # the queue's gold lottery
    gold = images_of(collection, world, range(args.gold))
    work(collection, world, earlier, gold, rng, draws)
    review_to_gold(collection, world, reviewer, gold)
    crowd_settings_update(collection=collection, values={"auto_accept": True})
    images = images_of(collection, world, range(args.gold, args.gold + args.scenes))
    handed = work(collection, world, people, gold | images, rng, draws)  # gold images come up again
    return measures(world, collection, people, images) | {"handed": handed}


def images_of(collection, world: World, indices) -> dict[int, int]:
    """Image rows for these scenes, waiting for annotation (as an imported scene graph's, without
    pixels): image id -> scene index."""
    rows = Image.objects.bulk_create(
        Image(
            collection=collection,
            original_name=world.scenes[i].image,
            width=world.scenes[i].width,
            height=world.scenes[i].height,
            stage=Stage.ANNOTATE,
        )
        for i in indices
    )
    return {row.pk: i for row, i in zip(rows, indices, strict=True)}


def work(collection, world: World, people, scenes: dict[int, int], rng, draws) -> dict[str, int]:
    """(`scenes`: image id -> scene index of every image the queue may hand out.) The annotators, each in turn at random, take the next image and submit their version of it, until
    nothing waits for anyone; how many images each was handed."""
    handed = dict.fromkeys(people, 0)
    active = list(CROWD)
    while active:
        annotator = active[int(rng.integers(len(active)))]
        user = people[annotator.name]
        try:
            copy = copy_next(collection=collection, user=user, rng=draws)
        except PermissionDeniedError:  # paused
            copy = None
        if copy is None:
            active.remove(annotator)
            continue
        handed[annotator.name] += 1
        copy_save(copy=copy, user=user, document=drawn(world, annotator, scenes[copy.image_id]))
        copy_submit(copy=copy, user=user)
    return handed


def drawn(world: World, annotator: Annotator, index: int) -> dict:
    version = world.drawn[annotator.name][index]
    return numbered(
        world, scene_document(world.scenes[index], version.boxes, version.relations, world.symmetric)
    )


def numbered(world: World, document: dict) -> dict:
    """A scene document as a save takes it: objects numbered o1..oN, relationships by those numbers."""
    ids = {o["id"]: f"o{n + 1}" for n, o in enumerate(document["objects"])}
    return {
        "objects": [o | {"id": ids[o["id"]]} for o in document["objects"]],
        "relationships": [
            {"subject": ids[r["subject"]], "predicate": r["predicate"], "object": ids[r["object"]]}
            for r in document["relationships"]
        ],
    }


def review_to_gold(collection, world: World, reviewer, scenes: dict[int, int]) -> None:
    """The reviewer takes each merge waiting, corrects it to the truth, accepts it and marks it gold."""
    while (merge := merge_review_next(collection=collection, user=reviewer)) is not None:
        truth = world.truths[scenes[merge.image_id]]
        scene = world.scenes[scenes[merge.image_id]]
        document = numbered(world, scene_document(scene, truth.boxes, truth.relations, world.symmetric))
        merge = merge_correct(merge=merge, user=reviewer, document=document)
        merge = merge_accept(merge=merge, user=reviewer)
        gold_mark(image=Image.objects.get(pk=merge.image_id), user=reviewer)


def measures(world: World, collection, people, scenes: dict[int, int]) -> dict[str, Any]:
    merges = list(ImageMerge.objects.filter(image_id__in=scenes).order_by("image_id"))
    copies = list(
        Copy.objects.filter(image_id__in=scenes, state=CopyState.SUBMITTED, gold=False).order_by("pk")
    )
    first: dict[int, Copy] = {}
    for copy in copies:
        first.setdefault(copy.image_id, copy)
    singles = {
        a.name: figures(world, scenes, [c for c in copies if c.annotator_id == people[a.name].pk])
        for a in CROWD
    }
    return {
        "merge": figures(world, scenes, merges, document=lambda m: m.merged),
        "first": figures(world, scenes, list(first.values())),
        "singles": singles,
        "review": sum(m.state == MergeState.REVIEW for m in merges) / max(len(merges), 1),
        "weighted": sum(m.weighted for m in merges) / max(len(merges), 1),
        "merged_images": len(merges),
        "gold": gold_figures(collection, people),
        "merged_scenes": scenes_of(world, scenes, merges, lambda m: m.merged),
        "first_scenes": scenes_of(world, scenes, list(first.values()), lambda c: c.document),
    }


def figures(
    world: World, scenes: dict[int, int], rows: list, document=lambda c: c.document
) -> dict[str, Any]:
    truths = [world.truths[scenes[r.image_id]] for r in rows]
    versions = [version_of("work", document(r)) for r in rows]
    return world_figures(world, truths, versions) | {"images": len(rows)}


def world_figures(world: World, truths, versions) -> dict[str, Any]:
    from benchmarks.crowd_measures import tally

    return tally(
        truths, [(v.boxes, v.relations) for v in versions], world.vocabulary, world.symmetric
    ).figures()


def gold_figures(collection, people) -> dict[str, dict[str, Any]]:
    """Per annotator: gold images done, their accuracy, and after how many gold images they were paused."""
    found = {}
    for name, user in people.items():
        scores = GoldScore.objects.filter(copy__image__collection=collection, copy__annotator=user)
        rows = list(scores.order_by("scored_at").values_list("correct", "total", "scored_at"))
        pause = Pause.objects.filter(collection=collection, annotator=user).order_by("paused_at").first()
        found[name] = {
            "gold": len(rows),
            "accuracy": sum(r[0] for r in rows) / sum(r[1] for r in rows)
            if rows and sum(r[1] for r in rows)
            else None,
            "paused_after": None if pause is None else sum(r[2] <= pause.paused_at for r in rows),
        }
    return found


def scenes_of(world: World, scenes: dict[int, int], rows: list, document) -> list:
    return [
        parse_scene(
            {
                "image": world.scenes[scenes[r.image_id]].image,
                "width": world.scenes[scenes[r.image_id]].width,
                "height": world.scenes[scenes[r.image_id]].height,
                "objects": document(r).get("objects", []),
                "relationships": document(r).get("relationships", []),
            },
            world.vocabulary,
        )
        for r in rows
    ]


if __name__ == "__main__":
    main()
