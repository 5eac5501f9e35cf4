"""Issue 51, point 2, with real processes: a dealer worker started as the service starts it
(`scripts/serve.sh dealer`, two processes, `TRUTHING_DEALERS=2`) deals one session's streams with both
processes, the helper's task sent through Redis by the deal's run; the deal finishes once, each stream
written once, and the streams are those one dealer in this process deals for the same deal."""

from __future__ import annotations

import re

import pytest
from django.db import transaction

from accounts.roles import Role
from evaluation.services.sessions import session_enrol
from evaluation.services.systems import system_create
from tests.factories import UserFactory
from tests.integration.conftest import wait_for
from tests.integration.test_proposal_queue import an_oracle_test
from tests.serving import ROOT, start, stop
from tests.truthing.test_deal_spread import _deal_again, _streams
from truthing.models import Deal, DealtStream, Stream
from truthing.published import dealing

pytestmark = pytest.mark.integration

HELPED = re.compile(r"truthing\.tasks\.deal_help\[[^\]]+\] succeeded in [0-9.e-]+s: (\d+)")


def test_two_dealer_processes_deal_one_session_each_stream_once(real_services, tmp_path, settings):
    settings.TRUTHING_CHECK_SHARE = settings.TRUTHING_GOLD_SHARE = 0.0  # nothing waits for an operator
    test = an_oracle_test(images=16)
    log = tmp_path / "dealer.log"
    env = {**real_services, "DEALER_CONCURRENCY": "2", "TRUTHING_DEALERS": "2"}
    dealer = start([str(ROOT / "scripts/serve.sh"), "dealer"], env, log)
    try:
        wait_for(lambda: "ready." in log.read_text(), 60, "the dealer worker to start", log)
        system = system_create(owner=UserFactory(role=Role.VISION_SYSTEM_OWNER), name="two dealers")
        with transaction.atomic():
            session = session_enrol(system=system, test_id=test.pk)
        deal = Deal.objects.get(pk=session.deal_id)
        wait_for(lambda: Deal.objects.get(pk=deal.pk).status in ("done", "failed"), 120, "the deal", log)
        helped = wait_for(lambda: [int(n) for n in HELPED.findall(log.read_text())], 30, "the helper", log)
    finally:
        stop(dealer)
    deal.refresh_from_db()
    assert (deal.status, deal.streams_done, deal.attempts) == ("done", deal.streams_total, 1), deal.message
    assert 0 < sum(helped) < deal.streams_total, "the helper process dealt none, or all"
    rows = list(DealtStream.objects.filter(deal=deal).values_list("stream_id", flat=True))
    assert set(Stream.dealt.filter(deal=deal).values_list("pk", flat=True)) == set(rows)
    assert len(set(rows)) == len(rows) == deal.streams_total
    by_two = _streams(deal)

    # The same deal dealt again by one dealer, in this process: the same streams.
    _deal_again(deal)
    settings.TRUTHING_DEALERS = 1
    assert dealing.deal_run(job_id=deal.pk).status == "done"
    assert _streams(deal) == by_two
