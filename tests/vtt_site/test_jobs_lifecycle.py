"""A job's status and lifecycle are declared once (vtt_site.job_model): every job model holds them.

A model that names its running status in its own words, or has statuses beyond the lifecycle (an
import's `previewed`, a fit's `waiting` and `ready`), still stores the lifecycle's queued and failed,
so the mechanism (claim, sweep, limits, the admin's refresh) reads every job the same way.
"""

from __future__ import annotations

import pytest

from vtt_site.job_model import JobStatus
from vtt_site.job_sweep import job_models

MODELS = sorted(job_models(), key=lambda model: model.__name__)


def test_every_app_s_jobs_are_found():
    names = {model.__name__ for model in MODELS}
    assert {"ImportJob", "FittedStatistics", "FitShard", "AutomaticTruthing", "TestAudit", "Deal"} <= names
    assert {"RankingCheck", "PreannotationJob"} <= names


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_a_job_s_statuses_hold_the_lifecycle(model):
    field = model._meta.get_field("status")
    values = [value for value, _ in field.choices]
    assert field.default == JobStatus.QUEUED
    assert {JobStatus.QUEUED, JobStatus.FAILED, model.done_status, *model.running_statuses} <= set(values)
    assert len(set(values)) == len(values)
    assert max(len(value) for value in values) <= field.max_length
    # Running, waiting and settled are apart: a running status is never the one a run ends in.
    assert not set(model.running_statuses) & set(model.settled_statuses())
    assert JobStatus.QUEUED not in model.running_statuses


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_queued_and_running_are_unfinished_and_the_rest_not(model):
    for value, _ in model._meta.get_field("status").choices:
        job = model(status=value)
        assert job.unfinished == (value == JobStatus.QUEUED or value in model.running_statuses)
        assert job.running == (value in model.running_statuses)
