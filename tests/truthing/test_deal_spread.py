"""Issue 51, point 2: one deal spread over several dealers (truthing.published.dealing, decision 0096).

The dealers here are threads, each with its own PostgreSQL connection, as worker processes would be: the
deal's run (the owner) in one, each helper it asks for in another (the helper's task is replaced by a
thread, so nothing needs a broker). Generating a stream is slowed a little so that the dealers really
overlap. A stream depends on its image, the deal's seed and earlier deals only (decision 0097), so the
same deal dealt again by 1, 2 or 3 dealers, or with a dealer that dies on the way, gives the same streams.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from accounts.roles import Role
from evaluation.services.sessions import session_enrol
from evaluation.services.systems import system_create
from truthing.models import Deal, DealtStream, Step, Stream
from truthing.published import dealers, dealing, deals
from truthing.services import lifecycle
from vtt_site.job_model import JobStatus

pytestmark = pytest.mark.django_db(transaction=True)

SLOW_SECONDS = 0.03  # added to each stream's generation, so that the dealers' claims overlap


class Died(BaseException):
    """A dealer's process ending mid-stream: nothing of the dealer catches it."""


@pytest.fixture
def oracle_test(make_test, annotated_test_images, trained_collection):
    from demo.synthetic.scenes import generate_scenes
    from tests.django_fixtures import import_test_scenes

    import_test_scenes(trained_collection, generate_scenes(7, seed=46, prefix="test-more"))
    images = annotated_test_images + list(
        trained_collection.images.filter(original_name__startswith="test-more").order_by("pk")
    )
    return lifecycle.publish_test(test=lifecycle.start_test(test=make_test(images, seed=5)))


class Dealers:
    """The deals of one test run by dealers in threads: `deal(deal, n)` runs the owner and asks n - 1
    helpers; a stream's generation can be made to kill its dealer (`die_at`)."""

    def __init__(self, monkeypatch, settings) -> None:
        self.settings = settings
        self.queued: list[int] = []
        self.generated: Counter[tuple[int, int]] = Counter()  # (deal seed, position) -> generations begun
        self.finished: Counter[int] = Counter()  # deal -> finishes that landed
        self.helpers: list[threading.Thread] = []
        self.die_at: dict[str, int] = {}  # thread name -> the generation (1, 2, ...) that kills it
        self.meanwhile: dict[str, Callable[[], None]] = {}  # thread name -> run in another thread, once
        self.frozen: dict[str, float] = {}  # thread name -> seconds it stops for in its first stream
        self.lock = threading.Lock()
        monkeypatch.setattr(deals, "job_enqueue", lambda deal: self.queued.append(deal.pk))
        monkeypatch.setattr(dealing, "tasks_in_process", lambda: False)
        monkeypatch.setattr(dealing, "DEAL_HELP", self)  # `send`: a helper thread instead of a task
        run_automatic, job_finish = dealers.run_automatic, dealers.job_finish

        def generate(stats, scene, settings, seed, **kwargs):
            name = threading.current_thread().name
            with self.lock:
                self.generated[(seed[3], seed[1])] += 1
                mine = sum(1 for n in self.calls if n == name) + 1
                self.calls.append(name)
            if name in self.meanwhile:  # while this dealer holds its row, before it writes
                other = threading.Thread(target=_closing(self.meanwhile.pop(name)))
                other.start()
                other.join(60)
            time.sleep(self.frozen.pop(name, 0.0))  # no query meanwhile: idle in its transaction
            if self.die_at.get(name) == mine:
                connection.connection.close()  # the server sees the dealer's connection end
                raise Died
            time.sleep(SLOW_SECONDS)
            return run_automatic(stats, scene, settings, seed, **kwargs)

        def finish(deal, **values):
            job_finish(deal, **values)
            with self.lock:
                self.finished[deal.pk] += 1

        self.calls: list[str] = []
        monkeypatch.setattr(dealers, "run_automatic", generate)
        monkeypatch.setattr(dealers, "job_finish", finish)

    def send(self, deal_id: int, claim: str, *, what: str) -> bool:
        name = f"helper-{len(self.helpers) + 1}"
        thread = threading.Thread(
            target=_closing(dealing.deal_help), kwargs={"deal_id": deal_id, "claim": claim}
        )
        thread.name = name
        self.helpers.append(thread)
        thread.start()
        return True

    def deal(self, deal: Deal, count: int, *, owner: str = "owner") -> None:
        """Run the deal's job with `count` dealers, to the end of every thread."""
        self.settings.TRUTHING_DEALERS = count
        self.helpers = []
        thread = threading.Thread(target=_closing(dealing.deal_run), kwargs={"job_id": deal.pk}, name=owner)
        thread.start()
        thread.join(120)
        for helper in self.helpers:
            helper.join(120)
        assert not thread.is_alive() and not any(h.is_alive() for h in self.helpers)


def _closing(function):
    def run(**kwargs) -> None:
        try:
            function(**kwargs)
        except Died:
            pass
        finally:
            with contextlib.suppress(Exception):  # the connection a dying dealer closed itself
                connections.close_all()

    return run


def _enrol(test, make_user, name: str) -> Deal:
    system = system_create(owner=make_user(Role.VISION_SYSTEM_OWNER, username=name), name=f"{name}'s")
    return Deal.objects.get(pk=session_enrol(system=system, test_id=test.pk).deal_id)


def _streams(deal: Deal) -> list[tuple]:
    """What the session is dealt, position by position: each stream's exposure and steps."""
    rows = DealtStream.objects.filter(deal=deal).order_by("position").select_related("stream")
    dealt = []
    for row in rows:
        steps = Step.objects.filter(stream=row.stream).order_by("index")
        dealt.append(
            (
                row.test_image_id,
                tuple(row.stream.exposure_streams),
                tuple((s.text, str(s.question), s.answer, s.label, s.p, s.population) for s in steps),
            )
        )
    return dealt


def _deal_again(deal: Deal, finished: Counter[int] | None = None) -> None:
    """Forget the deal's streams (and the finishes counted) and queue it again, as a new run from the
    start would find it."""
    if finished is not None:
        finished.clear()
    with transaction.atomic():
        generated = list(Stream.dealt.filter(deal=deal).values_list("pk", flat=True))
        DealtStream.objects.filter(stream_id__in=generated).update(stream=None)
        Stream.dealt.filter(pk__in=generated).delete()
        Deal.objects.filter(pk=deal.pk).update(
            status=JobStatus.QUEUED, progress=0.0, streams_done=0, claim=None, finished_at=None, attempts=0
        )


def _dealt_undisturbed_then_queued_again(test, make_user, dealt: Dealers) -> tuple[Deal, list[tuple]]:
    """A deal dealt by one dealer (its streams), then queued again without them."""
    deal = _enrol(test, make_user, "ann")
    dealt.deal(deal, 1)
    undisturbed = _streams(deal)
    _deal_again(deal, dealt.finished)
    return deal, undisturbed


def _done_once(deal: Deal, dealt: Dealers) -> None:
    deal.refresh_from_db()
    total = deal.streams_total
    assert (deal.status, deal.streams_done, deal.progress) == (JobStatus.DONE, total, 1.0)
    assert dealt.finished[deal.pk] == 1, "the deal was finished more or less than once"
    rows = list(DealtStream.objects.filter(deal=deal).values_list("stream_id", flat=True))
    assert None not in rows and len(set(rows)) == len(rows) == total
    # Every stream generated for the deal is one its session is dealt: none written twice.
    assert set(Stream.dealt.filter(deal=deal).values_list("pk", flat=True)) == set(rows)


def test_the_same_seed_deals_the_same_streams_with_one_two_or_three_dealers(
    oracle_test, make_user, monkeypatch, settings
):
    dealt = Dealers(monkeypatch, settings)
    earlier = _enrol(oracle_test, make_user, "ann")
    dealt.deal(earlier, 1)
    deal = _enrol(oracle_test, make_user, "bob")
    dealt.deal(deal, 1)
    _done_once(deal, dealt)
    alone = _streams(deal)
    assert all(exposure for _, exposure, _ in alone), "no exposure of the earlier deal: nothing is tested"
    # A later deal's streams, written now on the same images, are no part of this deal's exposure.
    later = _enrol(oracle_test, make_user, "cy")
    dealt.deal(later, 2)
    for count in (2, 3):
        _deal_again(deal, dealt.finished)
        dealt.deal(deal, count)
        _done_once(deal, dealt)
        assert len({thread for thread in dealt.calls[-deal.streams_total :]}) == count, "a dealer did nothing"
        assert _streams(deal) == alone, f"{count} dealers dealt other streams than one"
    earlier_streams = set(Stream.dealt.filter(deal=earlier).values_list("pk", flat=True))
    assert all(set(exposure) <= earlier_streams for _, exposure, _ in _streams(deal))


def test_racing_dealers_write_every_stream_exactly_once_and_finish_the_deal_once(
    oracle_test, make_user, monkeypatch, settings
):
    dealt = Dealers(monkeypatch, settings)
    for name in ("ann", "bob"):
        deal = _enrol(oracle_test, make_user, name)
        dealt.deal(deal, 3)
        _done_once(deal, dealt)
        generated = [count for (seed, _), count in dealt.generated.items() if seed == deal.seed]
        # Each stream was generated once: no dealer worked on a row another held.
        assert len(generated) == deal.streams_total and set(generated) == {1}


def test_a_helper_that_dies_mid_stream_leaves_its_row_to_the_others(
    oracle_test, make_user, monkeypatch, settings
):
    dealt = Dealers(monkeypatch, settings)
    deal, undisturbed = _dealt_undisturbed_then_queued_again(oracle_test, make_user, dealt)
    dealt.calls.clear()
    dealt.die_at = {"helper-1": 2}
    dealt.deal(deal, 3)
    assert dealt.calls.count("helper-1") == 2  # it died in the middle of its second stream
    _done_once(deal, dealt)
    assert _streams(deal) == undisturbed


def test_a_dealer_silent_in_its_claim_for_the_staleness_period_loses_its_row(
    oracle_test, make_user, monkeypatch, settings
):
    """A frozen process (or a machine gone without closing its connection) holds its row no longer than
    a job's staleness period: PostgreSQL ends its session, and the owner deals the row."""
    dealt = Dealers(monkeypatch, settings)
    deal, undisturbed = _dealt_undisturbed_then_queued_again(oracle_test, make_user, dealt)
    settings.JOB_STALE_SECONDS = 2
    dealt.calls.clear()
    dealt.generated.clear()
    dealt.frozen = {"helper-1": 6.0}
    started = time.monotonic()
    dealt.deal(deal, 2)
    assert time.monotonic() - started < 30
    _done_once(deal, dealt)
    assert dealt.calls.count("helper-1") == 1
    # The frozen helper's stream was generated again, by the owner, once the helper lost its row.
    generated = sorted(count for (seed, _), count in dealt.generated.items() if seed == deal.seed)
    assert generated == [1] * (deal.streams_total - 1) + [2]
    assert _streams(deal) == undisturbed


def test_a_dead_owner_is_taken_over_by_a_new_run_which_deals_the_rest(
    oracle_test, make_user, monkeypatch, settings
):
    dealt = Dealers(monkeypatch, settings)
    deal, undisturbed = _dealt_undisturbed_then_queued_again(oracle_test, make_user, dealt)
    dealt.die_at = {"first run": 3}
    dealt.deal(deal, 1, owner="first run")
    deal.refresh_from_db()
    assert (deal.status, deal.streams_done) == ("dealing", 2)  # two written, the third died with it
    dealt.deal(deal, 2, owner="second run")  # the heartbeat is fresh: the running job is left alone
    assert Deal.objects.get(pk=deal.pk).attempts == 1
    Deal.objects.filter(pk=deal.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=3600))
    dealt.deal(deal, 2, owner="third run")
    _done_once(deal, dealt)
    assert deal.attempts == 2
    assert _streams(deal) == undisturbed


def test_a_helper_of_a_run_that_was_taken_over_or_cancelled_writes_nothing(
    oracle_test, make_user, monkeypatch, settings
):
    dealt = Dealers(monkeypatch, settings)
    deal = _enrol(oracle_test, make_user, "ann")
    dealt.die_at = {"first run": 2}
    dealt.deal(deal, 1, owner="first run")
    claim = str(Deal.objects.get(pk=deal.pk).claim)
    assert DealtStream.objects.filter(deal=deal, stream__isnull=False).count() == 1

    # Cancelled while a helper generates a stream: the helper's write is rolled back, and it stops.
    def cancel() -> None:
        Deal.objects.filter(pk=deal.pk).update(status=JobStatus.CANCELLED, finished_at=timezone.now())

    dealt.meanwhile = {"late helper": cancel}
    helper = threading.Thread(
        target=_closing(dealing.deal_help), kwargs={"deal_id": deal.pk, "claim": claim}, name="late helper"
    )
    helper.start()
    helper.join(60)
    assert dealt.calls.count("late helper") == 1
    assert DealtStream.objects.filter(deal=deal, stream__isnull=False).count() == 1
    assert Stream.dealt.filter(deal=deal).count() == 1
    # Cancelled, or taken over by another run (another claim): a helper of the old run does nothing.
    assert dealing.deal_help(deal_id=deal.pk, claim=claim) == 0
    Deal.objects.filter(pk=deal.pk).update(status="dealing", claim="00000000-0000-0000-0000-000000000001")
    assert dealing.deal_help(deal_id=deal.pk, claim=claim) == 0
    assert dealt.calls.count("MainThread") == 0
    assert Deal.objects.get(pk=deal.pk).streams_done == 1


def test_a_helper_gives_its_worker_to_a_deal_that_waits_for_one(
    oracle_test, make_user, monkeypatch, settings
):
    dealt = Dealers(monkeypatch, settings)
    deal = _enrol(oracle_test, make_user, "ann")
    dealt.die_at = {"first run": 1}
    dealt.deal(deal, 1, owner="first run")  # running, nothing written
    claim = str(Deal.objects.get(pk=deal.pk).claim)
    waiting = _enrol(oracle_test, make_user, "bob")
    Deal.objects.filter(pk=waiting.pk).update(enqueued_at=timezone.now())
    assert dealing.deal_help(deal_id=deal.pk, claim=claim) == 0
    Deal.objects.filter(pk=waiting.pk).update(status=JobStatus.DONE)
    assert dealing.deal_help(deal_id=deal.pk, claim=claim) == deal.streams_total
    _done_once(deal, dealt)
