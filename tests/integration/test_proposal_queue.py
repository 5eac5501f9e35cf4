"""An operator's next question never waits behind a long job (issue 22, item 1): under `make serve` the
proposals have a queue and a worker of their own, so while long jobs fill the other worker the next
question still comes within seconds."""

from __future__ import annotations

import time

import pytest
from django.db import transaction

from accounts.roles import Role
from tests.factories import CollectionFactory, UserFactory
from tests.integration.test_job_takeover import FAST, finished, queue_import, watch
from tests.integration.test_supervision import ready
from tests.integration.test_truthing_worker import an_operator_test, wait_until_proposed
from tests.truthing.conftest import operator_of
from truthing.services import lifecycle
from truthing.services.queue import operator_next
from truthing.services.streams import step_answer

pytestmark = pytest.mark.integration

LIMIT = 5  # seconds; the benchmark measures the figure (docs/benchmarks.md)


def test_the_next_question_is_proposed_while_long_jobs_fill_their_worker(serve):
    served = serve(**FAST)
    ready(served)
    test = an_operator_test(served.log)  # its statistics are fitted by the worker for long jobs
    with transaction.atomic():
        lifecycle.test_start(test=test)
    operator = operator_of(test.test_images.first().image.collection, UserFactory(role=Role.OPERATOR))
    stream = wait_until_proposed(operator_next(user=operator), 60, served.log)

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
