"""The independent audit of a test, run as a job (issue 10): a blind guesser trained on the training
images' oracle streams, scored on the test's own streams, shown on the card."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from truthing import reports
from truthing.models import TestAudit
from truthing.services import lifecycle
from truthing.services.audit import test_audit_start as start_audit
from vtt_site.errors import ConflictError

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_ended_test_is_audited_and_the_card_shows_the_report(
    settings, make_test, annotated_test_images, api, users
):
    settings.VTT = {**settings.VTT, "AUDIT_TRAINING_STREAMS": 30}
    draft = make_test(annotated_test_images)
    with pytest.raises(ConflictError):
        start_audit(test=draft)
    test = lifecycle.test_start(test=draft)  # the oracle truths it (eager job)
    audit = start_audit(test=test)  # eager: the job ran when the start committed
    audit.refresh_from_db()
    assert audit.status == TestAudit.Status.DONE, audit.message
    report = audit.report
    assert report["held_out_streams"] == len(annotated_test_images)
    assert report["training_streams"] == 30
    assert (
        0.0 <= report["guesser"]["low"] <= report["guesser"]["accuracy"] <= report["guesser"]["high"] <= 1.0
    )
    assert "<svg" in audit.reliability_svg and "&lt;" not in test.name
    card = reports.test_card(test=test)
    assert card["audit"]["status"] == "done" and card["audit"]["report"]["held_out_questions"] > 0
    page = api.as_user(users[Role.ADMIN]).get(f"/api/v1/truthing/tests/{test.pk}/")
    assert page.json()["card"]["audit"]["report"]["engine_p"] == report["engine_p"]
