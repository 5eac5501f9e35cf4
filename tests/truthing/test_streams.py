"""Just-in-time truthing through the services: propose, answer, undo, the operator queue, reproducibility.

Transactional tests: the next question is proposed by a task queued when the answer commits (eager
here), so the commits must really happen."""

from __future__ import annotations

import pytest

from engine.core.story import Story
from truthing import bridge
from truthing.models import Stream, StreamState, TestState, TruthingMode
from truthing.services import lifecycle, proposals
from truthing.services.proposals import stream_propose
from truthing.services.queue import operator_next
from truthing.services.streams import step_answer, step_undo
from vtt_site.errors import ApplicationError, ConflictError


def pending(stream):
    return stream.steps.filter(answer="").first()


def truth_with(user, stream, answer_of=lambda step: "no", undo_at=None):
    """Answer every question of a held stream (tasks run eagerly in unit tests)."""
    answered = 0
    while True:
        stream.refresh_from_db()
        if stream.state == StreamState.ENDED:
            return answered
        step = pending(stream)
        step_answer(stream_id=stream.pk, user=user, index=step.index, answer=answer_of(step), seconds=1.5)
        answered += 1
        if undo_at is not None and answered == undo_at:
            step_undo(stream_id=stream.pk, user=user)
            undo_at = None


@pytest.mark.django_db(transaction=True)
def test_starting_proposes_the_first_question_of_every_operator_stream(make_test, unannotated_test_images):
    test = lifecycle.start_test(test=make_test(unannotated_test_images, streams_per_image=2))
    streams = Stream.objects.filter(test_image__test=test)
    assert test.state == TestState.TRUTHING and streams.count() == 6
    assert {s.test_image.mode for s in streams} == {TruthingMode.OPERATOR}
    for stream in streams:
        assert stream.state == StreamState.PENDING
        step = pending(stream)
        assert step.index == 0 and step.text and step.population > 0 and 0.0 <= step.p <= 1.0


@pytest.mark.django_db(transaction=True)
def test_an_operator_truths_a_stream_to_its_end_and_its_questions_are_reproducible(
    make_test, unannotated_test_images, operators
):
    lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    operator = operators[0]
    stream = operator_next(user=operator)
    assert isinstance(stream, Stream) and stream.lease_holder_id == operator.pk
    # Alternate yes and no so that objects get instantiated and the story goes on.
    truth_with(operator, stream, answer_of=lambda step: "yes" if step.index % 3 == 0 else "no", undo_at=3)
    stream.refresh_from_db()
    steps = list(stream.steps.order_by("index"))
    assert stream.state == StreamState.ENDED and all(s.answer for s in steps)
    assert [s.index for s in steps] == list(range(len(steps)))
    assert all(s.answered_by_id == operator.pk and s.seconds == 1.5 for s in steps)
    # Recomputing every question from the stored answers gives the same questions.
    for k, step in enumerate(steps):
        again = bridge.propose(stream.test_image, stream.number, steps[:k])
        assert (again.question, again.text, again.p, again.population) == (
            step.question,
            step.text,
            step.p,
            step.population,
        )
    assert bridge.propose(stream.test_image, stream.number, steps) is None or len(steps) >= 4 * 12


@pytest.mark.django_db(transaction=True)
def test_an_answer_and_its_label_are_stored_without_loading_the_engine(
    make_test, unannotated_test_images, operators, monkeypatch
):
    """The web process stores an answer and the label a yes makes from the structured forms alone
    (kernel.kinds.label_made); only the proposal, in a worker, loads the statistics. The labels are the
    ones the engine's own story gives."""
    lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    operator = operators[0]
    stream = operator_next(user=operator)
    for _ in range(10):
        stream.refresh_from_db()
        if stream.state == StreamState.ENDED:
            break
        step = pending(stream)
        queued = []
        with monkeypatch.context() as patched:
            for name in ("statistics_of", "loaded_statistics"):
                patched.setattr(bridge, name, lambda *args: pytest.fail("the answer loaded the statistics"))
            patched.setattr(proposals, "proposal_queue", queued.append)
            step_answer(stream_id=stream.pk, user=operator, index=step.index, answer="yes")
        assert queued == [stream.pk]
        stream_propose(stream_id=stream.pk)  # the proposal, as the worker runs it
    steps = list(stream.steps.exclude(answer="").order_by("index"))
    stats = bridge.statistics_of(stream.test_image.test)
    story = Story(stats.vocabulary)
    told = [story.record(q, a) for q, a in bridge.history_of(stats, stream.test_image, steps)]
    assert [s.label for s in steps] == ["" if label is None else str(label) for label in told]
    assert any(s.label for s in steps)


@pytest.mark.django_db(transaction=True)
def test_answers_are_refused_out_of_turn_out_of_lease_and_in_published_tests(
    make_test, unannotated_test_images, operators
):
    lifecycle.start_test(test=make_test(unannotated_test_images[:2]))
    first, second = operators[:2]
    mine, theirs = operator_next(user=first), operator_next(user=second)
    assert mine.pk != theirs.pk
    step = pending(mine)
    with pytest.raises(ConflictError) as error:
        step_answer(stream_id=mine.pk, user=first, index=step.index + 1, answer="yes")
    assert error.value.code == "step_not_pending"
    with pytest.raises(ConflictError) as error:
        step_answer(stream_id=theirs.pk, user=first, index=0, answer="yes")
    assert error.value.code == "lease_not_held"
    with pytest.raises(ApplicationError) as error:
        step_answer(stream_id=mine.pk, user=first, index=step.index, answer="maybe")
    assert error.value.code == "invalid"
    assert pending(mine).pk == step.pk and not pending(mine).answer


@pytest.mark.django_db(transaction=True)
def test_a_second_proposal_adds_nothing(make_test, unannotated_test_images):
    test = lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    stream = Stream.objects.get(test_image__test=test)
    before = list(stream.steps.values_list("pk", "index"))
    stream_propose(stream_id=stream.pk)
    stream_propose(stream_id=stream.pk)
    assert list(stream.steps.values_list("pk", "index")) == before


@pytest.mark.django_db(transaction=True)
def test_publishing_needs_every_stream_ended(make_test, unannotated_test_images, operators):
    test = lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    with pytest.raises(ConflictError) as error:
        lifecycle.publish_test(test=test)
    assert error.value.code == "test_unfinished" and "1 stream has not ended" in error.value.message
    stream = operator_next(user=operators[0])
    truth_with(operators[0], stream)
    test = lifecycle.publish_test(test=test)
    assert test.state == TestState.PUBLISHED
    with pytest.raises(ConflictError) as error:
        step_undo(stream_id=stream.pk, user=operators[0])
    assert error.value.code == "test_frozen"
    # Counted as a person says it: "1 stream has", "2 streams have", never "stream(s)".
    two = lifecycle.start_test(test=make_test(unannotated_test_images[1:3], name="two"))
    assert lifecycle.publish_blockers(two) == ["2 streams have not ended"]


@pytest.mark.django_db(transaction=True)
def test_the_streams_sweep_leaves_the_streams_of_the_automatic_truthing_alone(
    make_test, unannotated_test_images, annotated_test_images, monkeypatch
):
    """Streams of annotated images wait for the oracle's job, not for a proposal: the sweep must not
    queue one for them (it would put a question no operator can be given), and a proposal that comes
    anyway adds nothing. Issue 22 found 40 to 60 such proposals queued at a time."""
    from datetime import timedelta

    from django.utils import timezone

    from truthing.services import proposals

    images = unannotated_test_images[:1] + annotated_test_images[:2]
    test = lifecycle.start_test(test=make_test(images))
    streams = Stream.objects.filter(test_image__test=test)
    # Both kinds waiting for a minute, as if their tasks were lost (the oracle's job not run yet).
    streams.update(state=StreamState.PROPOSING, proposing_since=timezone.now() - timedelta(minutes=1))
    automatic = list(streams.filter(test_image__mode=TruthingMode.AUTOMATIC))
    for stream in automatic:
        stream.steps.all().delete()
    queued: list[int] = []
    monkeypatch.setattr(proposals, "proposal_queue", lambda pk: queued.append(pk) or True)
    assert proposals.streams_sweep() == 1
    assert queued == [streams.get(test_image__mode=TruthingMode.OPERATOR).pk]
    stream_propose(stream_id=automatic[0].pk)
    assert not automatic[0].steps.exists()
