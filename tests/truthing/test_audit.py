"""The independent audit of a test, run as a job (issue 10): a blind guesser trained on the training
images' oracle streams, scored on the test's own streams, shown on the card."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from truthing import reports
from truthing.models import TestAudit
from truthing.services import lifecycle
from truthing.services.audit import audit_start as start_audit
from vtt_site.errors import ConflictError
from vtt_site.job_model import JobStatus

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_ended_test_is_audited_and_the_card_shows_the_report(
    settings, make_test, annotated_test_images, api, users, client
):
    settings.AUDIT_TRAINING_STREAMS = 30
    draft = make_test(annotated_test_images)
    with pytest.raises(ConflictError):
        start_audit(test=draft)
    test = lifecycle.start_test(test=draft)  # the oracle truths it (eager job)
    audit = start_audit(test=test)  # eager: the job ran when the start committed
    audit.refresh_from_db()
    assert audit.status == JobStatus.DONE, audit.message
    report = audit.report
    assert report["held_out_streams"] == len(annotated_test_images)
    assert report["training_streams"] == 30
    assert (
        0.0 <= report["guesser"]["low"] <= report["guesser"]["accuracy"] <= report["guesser"]["high"] <= 1.0
    )
    assert "<svg" in audit.reliability_svg and "&lt;" not in test.name
    # The reuse figures (issue 18): sessions dealt fresh oracle streams, so every row has its questions.
    reuse = report["reuse"]
    assert [row["n"] for row in reuse["rows"]] == [1, 3, 10] and reuse["sessions"] == 13
    assert all(row["questions"] > 0 and 0.0 <= row["attacker"] <= 1.0 for row in reuse["rows"])
    card = reports.card_of_test(test=test)
    assert card["audit"]["status"] == "done" and card["audit"]["report"]["held_out_questions"] > 0
    page = api.as_user(users[Role.ADMIN]).get(f"/api/v1/truthing/tests/{test.pk}/")
    assert page.json()["card"]["audit"]["report"]["engine_p"] == report["engine_p"]
    # Issue 34's first ruling on the card: the learned guesser judged, the engine's p one draw.
    client.force_login(users[Role.ADMIN])
    html = client.get(f"/tests/{test.pk}/").content.decode()
    verdict = html.split('data-testid="audit-verdict">', 1)[1].split("</p>", 1)[0]
    within = (
        report["verdict"]["learned_guesser"]["guesser"]
        and report["verdict"]["learned_guesser"]["guesser_kind"]
    )
    assert ("stays within its targets" if within else "beats its targets") in verdict
    assert "<em>one draw</em> here: reported, not judged" in verdict


def test_a_second_audit_joins_the_one_waiting_or_running_and_a_user_has_only_so_many(
    settings, make_test, annotated_test_images, users, monkeypatch
):
    """Issue 22: about 300 audit requests queued 300 messages in front of every operator's next
    question. A request while the test's audit waits or runs gets that audit and queues nothing."""
    from truthing.services import audit as audit_services

    queued = []
    monkeypatch.setattr(audit_services, "job_enqueue", queued.append)
    admin = users[Role.ADMIN]
    test = lifecycle.start_test(test=make_test(annotated_test_images[:2]))
    first = start_audit(test=test, user=admin)
    assert start_audit(test=test, user=admin).pk == first.pk and queued == [first]  # joined while queued
    TestAudit.objects.filter(pk=first.pk).update(status=TestAudit.running_statuses[0])
    assert start_audit(test=test, user=admin).pk == first.pk and queued == [first]  # joined while running
    TestAudit.objects.filter(pk=first.pk).update(status=JobStatus.DONE)
    again = start_audit(test=test, user=admin)  # audited before: a new run of the same row
    assert again.pk == first.pk and again.status == JobStatus.QUEUED and len(queued) == 2

    settings.JOBS_MAX_PER_USER = 1
    other = lifecycle.start_test(test=make_test(annotated_test_images[2:4], seed=8))
    with pytest.raises(ConflictError) as refused:
        start_audit(test=other, user=admin)
    assert refused.value.code == "too_many_jobs"
    assert not TestAudit.objects.filter(test=other).exists() and len(queued) == 2
