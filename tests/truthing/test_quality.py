"""Quality control: second opinions, adjudication that cuts a stream, gold work, operators' statistics."""

from __future__ import annotations

import pytest

from truthing import reports
from truthing.models import Check, CheckKind, Disagreement, Stream, StreamState
from truthing.selectors import work_view
from truthing.services import lifecycle
from truthing.services.adjudication import disagreement_decide
from truthing.services.checks import check_answer
from truthing.services.queue import operator_next
from truthing.services.streams import step_answer
from vtt_site.errors import ConflictError

pytestmark = pytest.mark.django_db(transaction=True)


def truth(user, stream, answer_of):
    while True:
        stream.refresh_from_db()
        if stream.state == StreamState.ENDED:
            return
        step = stream.steps.get(answer="")
        step_answer(stream_id=stream.pk, user=user, index=step.index, answer=answer_of(step), seconds=2.0)


def answer_check(user, check, answer_of):
    while (pending := work_view(check)["pending"]) is not None:
        check_answer(
            check_id=check.pk, user=user, index=pending["step"], answer=answer_of(pending), seconds=1.0
        )
        check.refresh_from_db()


def test_a_checker_sees_the_questions_not_the_answers_and_a_disagreement_cuts_the_stream(
    settings, make_test, unannotated_test_images, operators, users
):
    settings.TRUTHING_CHECK_SHARE = 1.0
    test = lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    first, checker = operators[:2]
    stream = operator_next(user=first)
    truth(first, stream, lambda step: "yes" if step.index == 0 else "no")
    check = operator_next(user=checker)
    assert isinstance(check, Check) and check.kind == CheckKind.SECOND_OPINION
    assert operator_next(user=first) is None, "nobody checks their own stream"
    view = work_view(check)
    assert view["pending"]["step"] == 0 and "answer" not in str(view["pending"])
    # The checker disagrees on the first question only.
    answer_check(
        checker, check, lambda pending: "no" if pending["step"] == 0 else stored(stream, pending["step"])
    )
    disagreement = Disagreement.objects.get()
    assert disagreement.step.index == 0 and disagreement.check_answer.answer == "no"
    with pytest.raises(ConflictError):
        lifecycle.publish_test(test=test)
    steps_before = stream.steps.count()
    disagreement_decide(disagreement_id=disagreement.pk, user=operators[2], answer="no")
    stream.refresh_from_db()
    # Cut after step 0 and proposed again from there, with the decided answer.
    assert stream.steps.get(index=0).answer == "no"
    assert stream.state == StreamState.PENDING and stream.steps.count() == 2 <= steps_before
    assert stream.lease_holder_id is None, "the stream went back to the queue"


def stored(stream, index):
    return stream.steps.get(index=index).answer


def test_gold_work_is_scored_against_the_oracle_and_operators_get_statistics(
    settings, make_test, annotated_test_images, unannotated_test_images, operators
):
    settings.TRUTHING_GOLD_SHARE = 1.0
    test = lifecycle.start_test(test=make_test([annotated_test_images[0], unannotated_test_images[0]]))
    operator = operators[0]
    gold = operator_next(user=operator)
    assert isinstance(gold, Check) and gold.kind == CheckKind.GOLD
    oracle_stream = gold.stream
    # Right on every question but the first.
    answer_check(
        operator,
        gold,
        lambda p: (
            ("no" if stored(oracle_stream, 0) == "yes" else "yes")
            if p["step"] == 0
            else stored(oracle_stream, p["step"])
        ),
    )
    assert not Disagreement.objects.exists(), "gold answers are scored, not adjudicated"
    stream = operator_next(user=operator)
    assert isinstance(stream, Stream)
    truth(operator, stream, lambda step: "no")
    (row,) = reports.operator_statistics()
    total = oracle_stream.steps.count()
    assert row["operator"] == operator.username
    assert row["answers"] == total + stream.steps.count()
    assert row["gold_accuracy"]["successes"] == total - 1 and row["gold_accuracy"]["trials"] == total
    assert row["gold_accuracy"]["low"] < row["gold_accuracy"]["value"] < row["gold_accuracy"]["high"]
    assert row["median_seconds"] in (1.0, 2.0, 1.5)
    test = lifecycle.publish_test(test=test)
    card = reports.card_of_test(test=test)
    assert card["streams"] == 2 and card["answered"] + card["rejected"] == total + stream.steps.count()
    assert card["blind_accuracy"]["trials"] > 0
