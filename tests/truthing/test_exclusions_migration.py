"""truthing's migration 0007: steps stored before instantiation questions named the labels they leave
out are rewritten as they are written now, from the labels their stream had made before them."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from tests.evaluation.conftest import build_test
from truthing.models import Step

pytestmark = pytest.mark.django_db

migration = importlib.import_module("truthing.migrations.0007_questions_spell_out_exclusions")


def test_old_steps_are_spelled_out_from_their_stream_s_labels():
    test = build_test(
        [[("unique", "yes"), ("attr", "no"), ("exist", "no"), ("unique", "yes"), ("unique", "no")]]
    )
    steps = list(Step.objects.filter(stream__test_image__test=test).order_by("index"))
    texts = [
        "Is there a unique person in the designated region?",
        "Is person 1 walking?",
        "Is there a person in the designated region?",
        "Is there a unique person in the designated region?",
        "Is there a unique person in the designated region?",
    ]
    for step, text in zip(steps, texts, strict=True):
        step.text = text
        step.save(update_fields=["text"])
    migration.spell_out_exclusions(apps, None)
    after = list(Step.objects.filter(stream__test_image__test=test).order_by("index"))
    assert [s.question.get("excluding") for s in after] == [
        [],
        None,
        ["person 1"],
        ["person 1"],
        ["person 1", "person 2"],
    ]
    assert [s.text for s in after] == [
        "Is there a unique person in the designated region?",
        "Is person 1 walking?",
        "Is there a person other than person 1 in the designated region?",
        "Is there a unique person other than person 1 in the designated region?",
        "Is there a unique person other than person 1 and person 2 in the designated region?",
    ]
    migration.spell_out_exclusions(apps, None)  # a second run changes nothing
    assert [s.question for s in Step.objects.filter(stream__test_image__test=test).order_by("index")] == [
        s.question for s in after
    ]
