"""Automatic truthing: the oracle truths every stream of an annotated test image, exactly as
`vtt-engine generate` does on the same images, seed and settings (docs/method.md section 5)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.files.storage import default_storage

from engine.bridge import scenes_of
from engine.core.cli import main as vtt_engine
from tests.truthing.conftest import SETTINGS
from truthing.bridge import statistics_of
from truthing.models import AutomaticTruthing, Step, Stream, StreamState, TruthingMode
from truthing.services import lifecycle
from truthing.services.automatic import automatic_truthing_run


@pytest.mark.django_db(transaction=True)
def test_automatic_truthing_equals_vtt_engine_generate_step_for_step(
    make_test, annotated_test_images, statistics, tmp_path
):
    test = lifecycle.start_test(test=make_test(annotated_test_images, seed=11))
    streams = Stream.objects.filter(test_image__test=test).order_by("test_image__position")
    assert {s.test_image.mode for s in streams} == {TruthingMode.AUTOMATIC}
    assert all(s.state == StreamState.ENDED for s in streams)

    vocabulary = statistics_of(test).vocabulary
    by_name = {scene.image: scene for scene in scenes_of([i.pk for i in annotated_test_images], vocabulary)}
    scene_file = tmp_path / "test.jsonl"
    scene_file.write_text(
        "".join(
            json.dumps(by_name[i.original_name].to_document(vocabulary)) + "\n" for i in annotated_test_images
        )
    )
    out = io.StringIO()
    arguments = [
        "generate",
        "--stats",
        default_storage.path(statistics.storage_name),
        "--scenes",
        str(scene_file),
        "--seed",
        "11",
    ]
    arguments += [
        "--min-population",
        str(SETTINGS["min_population"]),
        "--max-questions",
        str(SETTINGS["max_questions"]),
    ]
    assert vtt_engine(arguments, stdout=out) == 0
    generated = [json.loads(line) for line in out.getvalue().splitlines()]

    stored = [
        {
            "image": step.stream.test_image.image.original_name,
            "index": step.index,
            "question": step.question,
            "text": step.text,
            "p": step.p,
            "population": step.population,
            "answer": step.answer,
            **({"label": step.label} if step.label else {}),
        }
        for step in Step.objects.filter(stream__test_image__test=test)
        .select_related("stream__test_image__image")
        .order_by("stream__test_image__position", "index")
    ]
    assert len(stored) > 5 * len(annotated_test_images)
    assert stored == generated
    assert all(
        step.automatic and step.answered_at for step in Step.objects.filter(stream__test_image__test=test)
    )


@pytest.mark.django_db(transaction=True)
def test_running_automatic_truthing_again_changes_nothing(make_test, annotated_test_images):
    test = lifecycle.start_test(test=make_test(annotated_test_images[:2]))
    before = list(Step.objects.filter(stream__test_image__test=test).values_list("pk", "question", "answer"))
    jobs = AutomaticTruthing.objects.filter(test=test).order_by("part")
    # Two parts (the default) side by side: image positions 0 and 1, one stream each.
    assert [(j.part, j.status, j.progress, j.streams_done, j.streams_total) for j in jobs] == [
        (0, "done", 1.0, 1, 1),
        (1, "done", 1.0, 1, 1),
    ]
    assert automatic_truthing_run(job_id=jobs[0].pk).status == "done"  # a second delivery: nothing to do
    after = list(Step.objects.filter(stream__test_image__test=test).values_list("pk", "question", "answer"))
    assert after == before


@pytest.mark.django_db(transaction=True)
def test_a_test_mixes_oracle_and_operator_images(make_test, annotated_test_images, unannotated_test_images):
    test = lifecycle.start_test(test=make_test([*annotated_test_images[:2], *unannotated_test_images[:2]]))
    modes = dict(
        Stream.objects.filter(test_image__test=test).values_list(
            "test_image__image__original_name", "test_image__mode"
        )
    )
    assert sorted(modes.values()) == ["automatic", "automatic", "operator", "operator"]
    states = Stream.objects.filter(test_image__test=test).values_list("test_image__mode", "state")
    assert sorted(states) == [
        ("automatic", "ended"),
        ("automatic", "ended"),
        ("operator", "pending"),
        ("operator", "pending"),
    ]
