"""The demo's crowd collection: each image drawn by three annotators, so a newcomer sees agreement, a merge,
its review, gold and the quality page under `make run`.

Four simulated annotators (`crowd-careful-1` to `-3` and `crowd-careless`) draw the first
images from their exact scene graphs through the same services the pages use: the careful ones with a
few pixels of jitter and now and then a box missed, the careless one missing a third of the boxes,
shifting the rest and never telling attributes. The reviewer accepts some merges and marks two gold;
the careless annotator meets gold and is paused. The rest of the images wait for the demo's own
annotator (who gets gold mixed in) and reviewer. A second run finds it made and changes nothing.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

from django.contrib.auth import get_user_model

from accounts.roles import Role
from accounts.services import user_create_with_role
from annotations.models import Collection, MemberRole, Split
from annotations.services.collections import collection_create, membership_set
from annotations.services.vocabularies import vocabulary_install_default
from crowd.services.copies import copy_save, copy_submit
from crowd.services.gold import gold_mark, gold_scores_catch_up
from crowd.services.queue import copy_next
from crowd.services.review import merge_accept, merge_review_next
from crowd.services.settings import crowd_settings_update
from demo.pictures import scene_pictures_upload
from demo.synthetic import generate_scenes

CROWD_NAME = "Demo crowd"
SEED = 2048
IMAGES, FIRST, THEN = 24, 4, 8
DRAWN = FIRST + THEN
# name -> (box jitter in pixels, share of boxes missed)
SIMULATED = {
    "crowd-careful-1": (2.0, 0.05),
    "crowd-careful-2": (3.0, 0.08),
    "crowd-careful-3": (2.5, 0.05),
    "crowd-careless": (30.0, 0.5),
}


def demo_crowd_ensure(*, people: dict[str, Any]) -> Collection:
    """The crowd collection; `people` maps the demo's annotator, reviewer and admin names to users."""
    found = Collection.objects.filter(name=CROWD_NAME).first()
    if found is not None:
        return found
    vocabulary, _ = vocabulary_install_default()
    collection = collection_create(
        name=CROWD_NAME,
        vocabulary=vocabulary,
        description="Each image is drawn by three annotators; their work is merged (`manage.py demo_setup`).",
    )
    roles = {"annotator": MemberRole.ANNOTATOR, "reviewer": MemberRole.REVIEWER, "admin": MemberRole.REVIEWER}
    for name, user in people.items():
        membership_set(collection=collection, user_id=user.pk, role=roles[name])
    crowd = {name: _simulated(collection, name) for name in SIMULATED}
    scenes = list(generate_scenes(IMAGES, SEED, prefix="demo-crowd"))
    scene_pictures_upload(collection=collection, scenes=scenes, split=Split.TRAIN)
    crowd_settings_update(
        collection=collection,
        values={"overlap": 3, "gold_rate": 0.0, "min_gold": 2, "pause_threshold": 0.6, "auto_accept": False},
    )
    truth = {scene["image"]: scene for scene in scenes}
    rng = random.Random(SEED)
    # The careful three draw the first images, which the reviewer accepts and partly marks gold; then two
    # of them and the careless one draw more, whose merges wait for the demo's reviewer.
    for names in [("crowd-careful-1", "crowd-careful-2", "crowd-careful-3")] * FIRST:
        for name in names:
            _draw(collection, crowd[name], truth, rng, *SIMULATED[name])
    _review(collection, people["reviewer"])
    for names in [("crowd-careful-1", "crowd-careful-2", "crowd-careless")] * THEN:
        for name in names:
            _draw(collection, crowd[name], truth, rng, *SIMULATED[name])
    # From now on a third of the hand-outs are gold: the careless annotator meets two and is paused.
    crowd_settings_update(collection=collection, values={"gold_rate": 0.34})
    for _ in range(2):
        _draw(collection, crowd["crowd-careless"], truth, rng, *SIMULATED["crowd-careless"], gold=True)
    return collection


def _simulated(collection: Collection, name: str) -> Any:
    user = get_user_model().objects.filter(username=name).first()
    if user is None:
        user = user_create_with_role(username=name, password=secrets.token_urlsafe(16), role=Role.ANNOTATOR)
    membership_set(collection=collection, user_id=user.pk, role=MemberRole.ANNOTATOR)
    return user


def _draw(collection, user, truth, rng, jitter: float, miss: float, *, gold: bool = False) -> None:
    copy = copy_next(collection=collection, user=user, rng=_Always() if gold else None)
    if copy is None:
        return
    scene = truth[copy.image.original_name]
    careless = jitter > 10
    objects: list[dict[str, Any]] = []
    for obj in scene["objects"]:
        if rng.random() < miss:
            continue
        x, y, w, h = obj["bbox"]
        dx, dy = rng.uniform(-jitter, jitter), rng.uniform(-jitter, jitter)
        box = [max(0.0, x + dx), max(0.0, y + dy), w, h]
        kept = {"id": f"o{len(objects) + 1}", "type": obj["type"], "bbox": box}
        objects.append(
            kept | ({"attributes": [], "attributes_known": False} if careless else _attributes(obj))
        )
    copy_save(copy=copy, user=user, document={"objects": objects, "relationships": []})
    copy_submit(copy=copy, user=user)
    if copy.gold:  # scored now, not by the task the submit sends once committed: the demo shows the pause
        gold_scores_catch_up(copy_id=copy.pk)


def _attributes(obj: dict) -> dict:
    return {
        "attributes": list(obj.get("attributes", [])),
        "attributes_known": obj.get("attributes_known", True),
    }


class _Always(random.Random):
    """A draw that always falls under the gold rate: the demo's careless annotator meets gold."""

    def random(self) -> float:
        return 0.0


def _review(collection: Collection, reviewer) -> None:
    """The reviewer accepts the merges there are and marks the first two gold."""
    for n in range(FIRST):
        merge = merge_review_next(collection=collection, user=reviewer)
        if merge is None:
            break
        merge_accept(merge=merge, user=reviewer)
        if n < 2:
            gold_mark(image=merge.image, user=reviewer)
