"""An operator's next question never waits behind a long job (issue 22, item 1): under `make serve` the
proposals have a queue and a worker of their own, so while long jobs fill the other worker the next
question still comes within seconds. Nor does a vision system's deal, the fresh streams it waits for
before it can answer (decision 0053): the deals have a queue and a worker of their own too."""

from __future__ import annotations

import time

import pytest
from django.db import transaction

from accounts.roles import Role
from annotations.models import Split
from demo.synthetic.scenes import generate_scenes
from engine import services as engine_services
from evaluation.services.sessions import session_enrol
from evaluation.services.systems import system_create
from tests.django_fixtures import import_scenes, import_test_scenes
from tests.factories import CollectionFactory, UserFactory
from tests.integration.test_job_takeover import FAST, finished, queue_import, watch
from tests.integration.test_supervision import ready
from tests.integration.test_truthing_worker import an_operator_test, taken_stream, wait_until_proposed
from tests.parallel import ONE_SERVED_AT_A_TIME
from tests.truthing.conftest import operator_of
from truthing.models import AutomaticTruthing, Deal
from truthing.services import lifecycle
from truthing.services.automatic import automatic_truthing_run
from truthing.services.streams import step_answer
from vtt_site.job_model import JobStatus

pytestmark = [pytest.mark.integration, ONE_SERVED_AT_A_TIME]

LIMIT = 5  # seconds; the benchmark measures the figure (docs/benchmarks.md)


def test_the_next_question_is_proposed_while_long_jobs_fill_their_worker(serve):
    served = serve(**FAST)
    ready(served)
    test = an_operator_test(served.log)  # its statistics are fitted by the worker for long jobs
    with transaction.atomic():
        lifecycle.start_test(test=test)
    operator = operator_of(test.test_images.first().image.collection, UserFactory(role=Role.OPERATOR))
    stream = wait_until_proposed(taken_stream(operator, 60, served.log), 60, served.log)

    imports = [queue_import(CollectionFactory()) for _ in range(3)]  # 2,500 scenes each, one at a time
    watch(imports[0], lambda j: j.running, 60, "the first import to start", served.log)
    step = stream.steps.get(answer="")
    with transaction.atomic():
        step_answer(stream_id=stream.pk, user=operator, index=step.index, answer="no")
    answered = time.monotonic()
    wait_until_proposed(stream, 30, served.log)
    took = time.monotonic() - answered
    waiting = [job for job in imports if not (job.refresh_from_db() or finished(job))]
    print(f"\nnext question after {took:.2f} s, with {len(waiting)} of 3 long imports not finished")
    assert waiting, "the long jobs all finished first: the proposal waited behind them"
    assert took < LIMIT


def an_oracle_test(images: int = 3):
    """A published test of `images` annotated images, built here (its jobs run in this process): every
    session of it is dealt fresh oracle streams by a deal job."""
    collection = CollectionFactory()
    import_scenes(collection, generate_scenes(300, seed=83))
    import_test_scenes(collection, generate_scenes(images, seed=84, prefix="seen"))
    statistics = engine_services.statistics_fit_start(user=None, collections=[collection])
    engine_services.statistics_fit_run(statistics_id=statistics.pk)
    statistics.refresh_from_db()
    images = collection.images.filter(split=Split.TEST).order_by("pk")
    test = lifecycle.create_test(
        name="dealt test",
        statistics=statistics,
        image_ids=[i.pk for i in images],
        settings={"min_population": 10, "max_questions": 15},
        seed=4,
    )
    test = lifecycle.start_test(test=test)
    for job in AutomaticTruthing.objects.filter(test=test):
        automatic_truthing_run(job_id=job.pk)
    return lifecycle.publish_test(test=test)


def test_a_systems_deal_is_made_while_long_jobs_fill_their_worker(serve, settings):
    settings.TRUTHING_CHECK_SHARE = 0.0
    settings.TRUTHING_GOLD_SHARE = 0.0
    test = an_oracle_test()
    served = serve(**FAST)
    ready(served)
    imports = [queue_import(CollectionFactory()) for _ in range(3)]  # 2,500 scenes each, one at a time
    watch(imports[0], lambda j: j.running, 60, "the first import to start", served.log)
    system = system_create(owner=UserFactory(role=Role.VISION_SYSTEM_OWNER), name="in a hurry")
    session = session_enrol(system=system, test_id=test.pk)
    enrolled = time.monotonic()
    deal = Deal.objects.get(pk=session.deal_id)
    watch(deal, lambda d: d.status == JobStatus.DONE, 30, "the deal", served.log)
    took = time.monotonic() - enrolled
    waiting = [job for job in imports if not (job.refresh_from_db() or finished(job))]
    print(f"\ndeal done after {took:.2f} s, with {len(waiting)} of 3 long imports not finished")
    assert deal.streams_total == 3
    assert waiting, "the long jobs all finished first: the deal waited behind them"
    assert took < LIMIT
