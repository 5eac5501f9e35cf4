"""The baselines: the command enrols them and runs them through the HTTP API (an in-process server);
the seeing baseline learns from rendered training scenes and tells objects from empty street on new
ones better than chance."""

from __future__ import annotations

import io

import numpy as np
import pytest
from django.core.management import call_command

from evaluation.models import Session
from evaluation.selectors.plans import plan_of
from tests.evaluation.conftest import build_test


@pytest.mark.django_db(transaction=True)
def test_the_command_runs_the_blind_baselines_through_the_api(capsys):
    test = build_test(name="baseline test")
    out = io.StringIO()
    call_command("run_baselines", test=test.pk, only="always-yes,random,blind-prior", stdout=out)
    sessions = Session.objects.filter(test_id=test.pk).select_related("system", "score")
    assert sorted(s.system.baseline for s in sessions) == ["always-yes", "blind-prior", "random"]
    assert all(s.state == "finished" and s.answered == 11 for s in sessions)
    always_yes = next(s for s in sessions if s.system.baseline == "always-yes")
    assert always_yes.score.accuracy == pytest.approx(7 / 11)
    # p > 0.5 on hand-built steps: index % 4 == 3 gives p = 0.6 (yes), the others no.
    assert "blind-prior: accuracy" in out.getvalue()
    # The blind prior gives the engine's p as its probability of yes: the test's own calibration.
    prior = next(s for s in sessions if s.system.baseline == "blind-prior")
    given = dict(prior.answers.values_list("ordinal", "p_yes"))
    assert given == {step.ordinal: step.p for step in plan_of(prior).steps}
    assert prior.score.data["forecasts"]["complete"] is True
    assert always_yes.score.data["forecasts"] is None
    # Run again: nothing is taken twice.
    call_command("run_baselines", test=test.pk, only="always-yes", stdout=out)
    assert "took this test already" in out.getvalue()


@pytest.mark.slow
def test_the_seeing_baseline_sees_objects_on_new_images():
    from demo.baselines.seeing import SeeingBaseline, TrainingImage
    from demo.synthetic import generate_scenes
    from demo.synthetic.render import render_scene
    from kernel.regions import default_regions
    from tests.factories import vocabulary_document

    scenes = list(generate_scenes(36, seed=5, prefix="see"))
    images = [TrainingImage(np.asarray(render_scene(s).convert("RGB")), s) for s in scenes]
    regions = [r.box for r in default_regions()]
    model = SeeingBaseline(vocabulary_document(), regions, seed=0).fit(images[:28])
    right = total = 0
    for item in images[28:]:
        width, height = item.scene["width"], item.scene["height"]
        for x0, y0, x1, y1 in regions:
            box = [x0 * width, y0 * height, (x1 - x0) * width, (y1 - y0) * height]
            truth = any(
                o["type"] == "person"
                and o["bbox"][0] < box[0] + box[2]
                and box[0] < o["bbox"][0] + o["bbox"][2]
                and o["bbox"][1] < box[1] + box[3]
                and box[1] < o["bbox"][1] + o["bbox"][3]
                for o in item.scene["objects"]
            )
            question = {
                "kind": "exist",
                "type": "person",
                "attributes": [],
                "region": {"id": "r", "box": box},
            }
            right += model.answer(question, [], item.pixels, width, height) == truth
            total += 1
    assert right / total > 0.7, right / total
