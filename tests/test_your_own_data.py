"""docs/guides/your-own-data.md, step by step, as one test: from a Visual Genome download (the
hand-written fixture, and a larger one in Visual Genome's layout with its open names) to a published
test taken by the blind and the seeing baselines through the HTTP API."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from accounts.roles import Role
from annotations.models import Image, MemberRole, Split, Stage
from annotations.selectors.annotation import image_annotation
from annotations.selectors.vocabularies import core_vocabulary
from annotations.services.annotation import annotation_save, annotation_submit
from annotations.services.collections import collection_create, membership_set
from annotations.services.queues import annotation_next, review_decide, review_next
from annotations.services.vocabularies import vocabulary_install_default
from datasets.formats.mapping import load_mapping
from demo.pictures import scene_picture
from demo.synthetic import generate_scenes
from engine import services as engine_services
from evaluation.models import Session
from tests.datasets.formats import without_source
from truthing.models import AutomaticTruthing, TestState
from truthing.services import lifecycle
from truthing.services.automatic import automatic_truthing_run

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "formats"
TRAINING, TESTING = 40, 4
# How the larger download names what the synthetic scenes hold: Visual Genome's kind of names, which
# the fixture's mapping.yaml maps back (and some it drops, which the annotators then restore).
NAME_OF_KIND = {"car": "car", "truck": "truck", "bus": "bus", "motorcycle": "motorcycle", "bicycle": "bike"}
SAID = {
    "walking": "walking",
    "standing still": "standing",
    "running": "running",
    "sitting": "sitting",
    "light-colored": "white",
    "dark-colored": "black",
    "parked": "parked",
    "moving": "moving",
}
PREDICATE = {"closer than": "in front of", "driving or riding": "riding", "talking": "talking to"}


def visual_genome_download(folder: Path, scenes: list[dict]) -> None:
    """Scenes as Visual Genome publishes its files: image_data.json and scene_graphs.json, open names
    ("man", "woman", "bike"), attribute names said the way Visual Genome says them, and no word on the
    groups it does not describe (place, carrying, hat)."""
    folder.mkdir()
    images, graphs = [], []
    for number, scene in enumerate(scenes, start=1):
        images.append(
            {
                "image_id": number,
                "url": f"https://example.org/{scene['image']}",
                "width": scene["width"],
                "height": scene["height"],
            }
        )
        ids = {obj["id"]: number * 100 + i for i, obj in enumerate(scene["objects"])}
        graphs.append(
            {
                "image_id": number,
                "objects": [
                    {
                        "object_id": ids[o["id"]],
                        "x": o["bbox"][0],
                        "y": o["bbox"][1],
                        "w": o["bbox"][2],
                        "h": o["bbox"][3],
                        "names": [_name(o)],
                        "synsets": [],
                        "attributes": [SAID[a] for a in o["attributes"] if a in SAID],
                    }
                    for o in scene["objects"]
                ],
                "relationships": [
                    {
                        "relationship_id": i,
                        "predicate": PREDICATE.get(r["predicate"], r["predicate"]),
                        "synsets": [],
                        "subject_id": ids[r["subject"]],
                        "object_id": ids[r["object"]],
                    }
                    for i, r in enumerate(scene["relationships"])
                ],
            }
        )
    (folder / "image_data.json").write_text(json.dumps(images))
    (folder / "scene_graphs.json").write_text(json.dumps(graphs))


def _name(obj: dict) -> str:
    if obj["type"] == "person":
        return "woman" if "female" in obj["attributes"] else "man"
    return next((NAME_OF_KIND[a] for a in obj["attributes"] if a in NAME_OF_KIND), "car")


def completed(draft: dict, truth: dict | None, vocabulary) -> dict:
    """What an annotator saves: the whole truth where the scene is known (boxes the mapping dropped
    restored, every group set), else the draft's boxes with what the import kept and the groups still
    unknown told (first value of each such exclusive group: what the annotator sees in the picture)."""
    if truth is not None:
        return {"objects": truth["objects"], "relationships": truth["relationships"]}
    objects = []
    for obj in draft["objects"]:
        groups = vocabulary.object_type(obj["type"]).groups
        unknown = obj.get("unknown", [] if obj["attributes_known"] else [g.name for g in groups])
        told = [g.values[0] for g in groups if g.exclusive and g.name in unknown]
        kept = {k: v for k, v in obj.items() if k != "unknown"}
        objects.append(kept | {"attributes": obj["attributes"] + told, "attributes_known": True})
    return {"objects": objects, "relationships": draft["relationships"]}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_from_a_visual_genome_download_to_a_published_test_taken_by_a_baseline(users, tmp_path, settings):
    settings.TRUTHING_CHECK_SHARE = 0.0
    settings.TRUTHING_GOLD_SHARE = 0.0
    admin, annotator, reviewer = users[Role.ADMIN], users[Role.ANNOTATOR], users[Role.REVIEWER]

    # 2. A collection and its vocabulary.
    vocabulary, _ = vocabulary_install_default()
    collection = collection_create(name="Our street scenes", vocabulary=vocabulary, created_by=admin)
    membership_set(collection=collection, user_id=annotator.pk, role=MemberRole.ANNOTATOR)
    membership_set(collection=collection, user_id=reviewer.pk, role=MemberRole.REVIEWER)
    core = core_vocabulary(vocabulary)

    # 1. The download: the hand-written fixture (awkward cases) for testing, a larger one for training.
    truth = {s["image"]: s for s in generate_scenes(TRAINING + TESTING, seed=21, prefix="street")}
    scenes = list(truth.values())
    visual_genome_download(tmp_path / "train", scenes[:TRAINING])
    visual_genome_download(tmp_path / "test", scenes[TRAINING:])

    # 3. The mapping: a proposal from the data's frequencies, then the edited file.
    proposal = tmp_path / "proposed.yaml"
    call_command(
        "propose_mapping", str(tmp_path / "train"), collection=collection.name, format="vg", out=str(proposal)
    )
    proposed = load_mapping(proposal.read_bytes(), core)
    assert proposed.names["car"] == ("vehicle", ("car",)) and "man" in proposed.drop_names
    mapping = FIXTURES / "mapping.yaml"  # the proposal, edited: man and woman are persons, and so on

    # 4. The import: drafts, with a report; the test images with their pixels beside them (a test takes
    # only images a vision system can look at).
    fixture_images = json.loads((FIXTURES / "vg" / "scene_graphs" / "image_data.json").read_text())
    fixture_sizes = [
        {"image": i["url"].rsplit("/", 1)[1], "width": i["width"], "height": i["height"]}
        for i in fixture_images
    ]
    out = io.StringIO()
    for folder, split, pictured in (
        # The seeing baseline learns from the training images that have pixels: half of them here.
        (tmp_path / "train", Split.TRAIN, scenes[: TRAINING // 2]),
        (tmp_path / "test", Split.TEST, scenes[TRAINING:]),
        (FIXTURES / "vg" / "scene_graphs", Split.TEST, fixture_sizes),
    ):
        pictures = tmp_path / f"pictures-{folder.name}"
        pictures.mkdir()
        for scene in pictured:
            (pictures / scene["image"]).write_bytes(scene_picture(scene))
        call_command(
            "import_scenes",
            str(folder),
            collection=collection.name,
            format="vg",
            mapping=str(mapping),
            split=split,
            images=str(pictures) if pictured else None,
            stdout=out,
        )
    assert "the annotation queue, as drafts to complete" in out.getvalue()
    assert "dropped: object names not in the mapping: 1 (café 1)" in out.getvalue()
    drafts = collection.images.filter(stage=Stage.ANNOTATE)
    assert drafts.count() == TRAINING + TESTING + 3
    assert not collection.images.exclude(stage=Stage.ANNOTATE).exists()  # nothing enters training yet

    # 5. Completion in the annotation queue, then review.
    while (image := annotation_next(collection=collection, user=annotator)) is not None:
        document = completed(image_annotation(image=image), truth.get(image.original_name), core)
        annotation_save(image=image, user=annotator, document=document)
        annotation_submit(image=image, user=annotator)
    while (image := review_next(collection=collection, user=reviewer)) is not None:
        review_decide(image=image, user=reviewer, decision="accept")
    assert set(collection.images.values_list("stage", flat=True)) == {Stage.ACCEPTED}

    # 4, again: importing the download a second time keeps the reviewed work (decision 0071).
    reviewed = [image_annotation(image=i) for i in collection.images.order_by("original_name")]
    again_options = {
        "collection": collection.name,
        "format": "vg",
        "mapping": str(mapping),
        "split": Split.TRAIN,
    }
    out = io.StringIO()
    call_command("import_scenes", str(tmp_path / "train"), preview=True, stdout=out, **again_options)
    assert "accepted image(s) would change" in out.getvalue() and "nothing was imported" in out.getvalue()
    out = io.StringIO()
    call_command("import_scenes", str(tmp_path / "train"), stdout=out, **again_options)
    assert "accepted image(s) as they were" in out.getvalue()
    assert set(collection.images.values_list("stage", flat=True)) == {Stage.ACCEPTED}
    assert [image_annotation(image=i) for i in collection.images.order_by("original_name")] == reviewed

    # 6. The fit, the test on the test images, truthed by the oracle, published.
    statistics = engine_services.statistics_fit_start(user=admin, collections=[collection])
    engine_services.statistics_fit_run(statistics_id=statistics.pk)
    statistics.refresh_from_db()
    assert statistics.status == "ready", statistics.message
    test_images = list(collection.images.filter(split=Split.TEST).order_by("original_name"))
    test = lifecycle.create_test(
        name="Our first test",
        statistics=statistics,
        image_ids=[i.pk for i in test_images],
        settings={"min_population": 5, "max_questions": 12},
        seed=3,
        created_by=admin,
    )
    test = lifecycle.start_test(test=test)
    for job in AutomaticTruthing.objects.filter(test=test):
        automatic_truthing_run(job_id=job.pk)
    assert lifecycle.publish_blockers(test) == []
    test = lifecycle.publish_test(test=test)
    assert test.state == TestState.PUBLISHED

    # 7. The baselines take it through the HTTP API: the blind one, and the seeing one, which first
    # learns from the training images' pixels and boxes.
    out = io.StringIO()
    call_command("run_baselines", test=test.pk, only="blind-prior,seeing", stdout=out)
    assert f"seeing: trained on {TRAINING // 2} images" in out.getvalue()
    sessions = Session.objects.select_related("score", "system").filter(test_id=test.pk)
    assert sorted(s.system.name for s in sessions) == ["baseline: blind-prior", "baseline: seeing"]
    for session in sessions:
        assert session.state == "finished" and session.answered > 0
        assert 0 <= session.score.accuracy <= 1

    # 8. And back: the completed annotations in the source's format, with its own ids and names, read
    # back through the same mapping as the same rows.
    archive = tmp_path / "completed.vg.zip"
    call_command("export_scenes", collection=collection.name, format="vg", out=str(archive))
    again = collection_create(name="Read back", vocabulary=vocabulary)
    call_command(
        "import_scenes",
        str(archive),
        collection=again.name,
        format="vg",
        mapping=str(mapping),
        complete=True,
        stdout=io.StringIO(),
    )
    before = [image_annotation(image=i) for i in collection.images.order_by("original_name")]
    after = [image_annotation(image=i) for i in again.images.order_by("original_name")]
    assert without_source(after) == without_source(before)
    # What came from Visual Genome goes back as it came: the image's id, each object's id and names.
    fixture = {r["image"]: r for r in before if r["image"] in ("101.jpg", "102.jpg")}
    for record in after:
        if record["image"] in fixture:
            assert record["source_id"] == fixture[record["image"]]["source_id"]
            assert [o["source"] for o in record["objects"]] == [
                o["source"] for o in fixture[record["image"]]["objects"]
            ]
    assert Image.objects.filter(collection=again, stage=Stage.REVIEW).count() == TRAINING + TESTING + 3
