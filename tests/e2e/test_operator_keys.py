"""Issue 38, item 3: a key press never answers a question unseen. A question takes no answer in its first
QUESTION_SETTLE_MS on screen, a held key answers once, a refused press says why, and a check handles keys
as a stream does, undo included."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import login, shot
from tests.e2e.test_truthing import members, pictured_test_images, truth
from truthing.models import CheckAnswer, Stream
from truthing.services import lifecycle
from truthing.services.proposals import stream_propose as propose
from truthing.services.queue import operator_next

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORK = "[data-testid=work]"


def answered(stream) -> int:
    return stream.steps.exclude(answer="").count()


def settled(page) -> None:
    page.wait_for_selector(f"{WORK}[data-settled=true]")


def take_work(page, user) -> None:
    login(page, user)
    page.goto("/truthing/")
    page.get_by_test_id("take-next").click()
    page.wait_for_selector("body[data-ready=true]")


def test_a_double_press_and_a_held_key_answer_one_question_each_in_a_stream(
    trained_collection, make_test, operators, new_page
):
    operator = operators[0]
    members(trained_collection, operator)
    (image,) = pictured_test_images(trained_collection, 1)
    test = lifecycle.start_test(test=make_test([image]))
    stream = Stream.objects.get(test_image__test=test)
    propose(stream_id=stream.pk)
    page = new_page()
    take_work(page, operator)

    # Two presses 60 ms apart: the first answers, the second finds the next question unsettled.
    settled(page)
    page.keyboard.press("n")
    page.wait_for_timeout(60)
    page.keyboard.press("n")
    page.wait_for_function(f"() => document.querySelector('{WORK}').dataset.step === '1'")
    note = page.get_by_test_id("settle-note")
    assert note.is_visible() and "Not taken" in note.inner_text()
    shot(page, "operator-double-press")
    settled(page)
    assert answered(stream) == 1, "the second press answered the next question unseen"

    # However fast the next question comes, a press in its first moments on screen is not taken.
    page.keyboard.press("n")
    page.wait_for_function(f"() => document.querySelector('{WORK}').dataset.step === '2'")
    page.keyboard.press("n")
    assert "appeared" in note.inner_text() and "ms ago" in note.inner_text()
    settled(page)
    assert answered(stream) == 2, "a press at once answered the question unseen"

    # A held key: its auto-repeat answers nothing, however long it is held.
    page.keyboard.down("n")
    for _ in range(6):  # Playwright sends a repeated keydown (event.repeat) for each further down()
        page.wait_for_timeout(100)
        page.keyboard.down("n")
    page.keyboard.up("n")
    settled(page)
    assert answered(stream) == 3

    # A button is held to the same rule as its key.
    settled(page)
    step = page.get_by_test_id("work").get_attribute("data-step")
    page.get_by_test_id("answer-no").click()
    page.get_by_test_id("answer-no").click(force=True)
    page.wait_for_function(f"s => document.querySelector('{WORK}').dataset.step !== s", arg=step)
    settled(page)
    assert answered(stream) == 4


def test_a_checker_undoes_with_the_key_and_double_presses_count_once(
    settings, trained_collection, make_test, operators, new_page
):
    settings.TRUTHING_CHECK_SHARE = 1.0
    first, checker = operators[:2]
    members(trained_collection, first, checker)
    (image,) = pictured_test_images(trained_collection, 1)
    lifecycle.start_test(test=make_test([image]))
    stream = operator_next(user=first)
    truth(first, stream)
    page = new_page()
    take_work(page, checker)
    assert page.get_by_test_id("work").get_attribute("data-kind") == "check"
    undo = page.get_by_test_id("undo")
    assert undo.is_visible() and undo.is_disabled(), "nothing to take back yet"

    settled(page)
    page.keyboard.press("y")
    page.wait_for_timeout(60)
    page.keyboard.press("y")
    page.wait_for_function(f"() => document.querySelector('{WORK}').dataset.step === '1'")
    settled(page)
    assert CheckAnswer.objects.filter(check_pass__stream=stream).count() == 1
    assert "Not taken" in page.get_by_test_id("settle-note").inner_text()

    page.keyboard.press("u")
    page.wait_for_function(f"() => document.querySelector('{WORK}').dataset.step === '0'")
    assert CheckAnswer.objects.filter(check_pass__stream=stream).count() == 0
    assert "You have answered nothing yet." in page.get_by_test_id("history").inner_text()
    shot(page, "checker-after-undo")
