"""Truthing in the browser: an operator truths a whole stream with the keyboard (one undo) while the
next question is proposed in the background; a checker disagrees and a reviewer adjudicates; an admin is
told why a test cannot be published yet (Publish disabled), then publishes it and sees its card."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from annotations.models import CollectionMembership, MemberRole, Split
from tests.django_fixtures import proposals_later
from tests.e2e.conftest import answer_key, login, shot, upload_street
from truthing.models import Disagreement, DisagreementState, Stream, StreamState, TestState
from truthing.services import lifecycle
from truthing.services.proposals import stream_propose as propose
from truthing.services.queue import operator_next
from truthing.services.streams import step_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def members(collection, *people, role=MemberRole.OPERATOR):
    """Make them members (the `operators` fixture already made its users operators there)."""
    for user in people:
        CollectionMembership.objects.get_or_create(collection=collection, user=user, defaults={"role": role})


def pictured_test_images(collection, count: int):
    """Test images with pixels and without a reviewed annotation: operators truth them."""
    images = []
    for i in range(count):
        image = upload_street(collection, name=f"street-test-{i}.png")
        image.split = Split.TEST
        image.save(update_fields=["split"])
        images.append(image)
    return images


def truth(user, stream, answer_of=lambda step: "no"):
    """Answer a held stream to its end through the services."""
    while True:
        stream.refresh_from_db()
        if stream.state == StreamState.ENDED:
            return
        step = stream.steps.get(answer="")
        step_answer(stream_id=stream.pk, user=user, index=step.index, answer=answer_of(step), seconds=1.0)


@pytest.fixture
def slow_engine(monkeypatch, settings):
    """The engine proposes 0.4 s after the answer commits, in another thread, as a worker would, and
    the answer's response waits only 0.1 s for it (TRUTHING_ANSWER_WAIT_SECONDS): the page has to show
    `proposing` and ask again until the question is there (the fallback of a slow proposal)."""
    settings.TRUTHING_ANSWER_WAIT_SECONDS = 0.1
    with proposals_later(monkeypatch, 0.4, wake=False):
        yield


def test_an_operator_truths_a_whole_stream_with_the_keyboard_and_one_undo(
    trained_collection, make_test, operators, new_page, slow_engine
):
    operator = operators[0]
    members(trained_collection, operator)
    (image,) = pictured_test_images(trained_collection, 1)
    test = lifecycle.start_test(test=make_test([image]))
    propose(stream_id=Stream.objects.get(test_image__test=test).pk)  # the first question, at start

    page = new_page()
    login(page, operator)
    page.get_by_role("link", name="Truthing").first.click()
    page.get_by_test_id("take-next").click()
    page.wait_for_selector("body[data-ready=true]")
    page.wait_for_selector("body[data-image-loaded=true]")
    work = page.get_by_test_id("work")
    assert work.get_attribute("data-state") == "pending" and work.get_attribute("data-step") == "0"
    assert page.locator("svg g.pending rect.region").count() == 1, "the first question has a region"
    assert "0 questions answered in this stream · 1 stream left in the test" in page.inner_text(
        "[data-testid=progress]"
    )
    shot(page, "operator-first-question")

    answered, undone, hovered, seen = 0, False, False, []
    while work.get_attribute("data-state") != "ended":
        step = int(work.get_attribute("data-step"))
        question = page.inner_text("[data-testid=question]")
        seen.append((step, question))
        # "Yes" to every uniqueness question, so that labels are made (and can be hovered).
        answer_key(page, "y" if "unique" in question or step % 3 == 0 else "n")
        answered += 1
        # The page shows `proposing` until the engine has added the next step (polled every 250 ms).
        page.wait_for_function(
            "s => { const w = document.querySelector('[data-testid=work]');"
            " return w.dataset.state === 'ended' || (w.dataset.state === 'pending' && w.dataset.step !== s); }",
            arg=str(step),
        )
        if not undone and step == 2:
            page.keyboard.press("u")
            page.wait_for_function("() => document.querySelector('[data-testid=work]').dataset.step === '2'")
            assert page.inner_text("[data-testid=question]") == question, "undo asks the same question again"
            assert "2 questions answered" in page.inner_text("[data-testid=progress]")
            undone = True
        if not hovered and page.locator("[data-testid=labels] li[data-label]").count():
            hovered = True
            page.locator("[data-testid=labels] li[data-label]").first.hover()
            assert page.locator("svg g.label-region rect.region").count() == 1, "hovering draws its region"
            shot(page, "operator-label-hover")
            page.mouse.move(0, 0)
    assert undone and hovered and answered >= 4
    page.get_by_test_id("done").wait_for()
    assert "Stream ended" in page.inner_text("[data-testid=done]")
    stream = Stream.objects.get(test_image__test=test)
    steps = list(stream.steps.order_by("index"))
    assert stream.state == StreamState.ENDED and len(steps) == answered - 1
    assert all(s.answered_by_id == operator.pk and s.seconds is not None for s in steps)
    assert [s.answer for s in steps] == [
        "yes" if s.question["kind"] == "unique" or s.index % 3 == 0 else "no" for s in steps
    ]
    shot(page, "operator-ended")

    # On a phone: the image, the question and the answer buttons fit in 390 px.
    page.set_viewport_size({"width": 390, "height": 844})
    page.keyboard.press("u")
    page.wait_for_function("() => document.querySelector('[data-testid=work]').dataset.state === 'pending'")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways ({width} px)"
    assert page.get_by_test_id("answer-ambiguous").bounding_box()["x"] + 10 < 390
    shot(page, "operator-phone")


def test_a_checker_disagrees_and_a_reviewer_adjudicates(
    settings, trained_collection, make_test, operators, users, new_page
):
    settings.TRUTHING_CHECK_SHARE = 1.0
    first, checker = operators[:2]
    reviewer = users[Role.REVIEWER]
    members(trained_collection, first, checker)
    members(trained_collection, reviewer, role=MemberRole.REVIEWER)
    (image,) = pictured_test_images(trained_collection, 1)
    lifecycle.start_test(test=make_test([image]))
    stream = operator_next(user=first)
    while True:
        stream.refresh_from_db()
        if stream.state == StreamState.ENDED:
            break
        step = stream.steps.get(answer="")
        step_answer(
            stream_id=stream.pk, user=first, index=step.index, answer="yes" if step.index == 0 else "no"
        )
    stored = dict(stream.steps.values_list("index", "answer"))

    page = new_page()
    login(page, checker)
    page.goto("/truthing/")
    page.get_by_test_id("take-next").click()
    page.wait_for_selector("body[data-ready=true]")
    work = page.get_by_test_id("work")
    assert work.get_attribute("data-kind") == "check" and page.get_by_test_id("undo").is_disabled()
    assert "person" in page.inner_text("[data-testid=question]") or "vehicle" in page.inner_text(
        "[data-testid=question]"
    )
    shot(page, "checker")
    # The checker says the opposite on the first question (with the button), the same elsewhere (keys).
    page.wait_for_selector("[data-testid=work][data-settled=true]")
    page.get_by_test_id("answer-no").click()
    page.wait_for_function("() => document.querySelector('[data-testid=work]').dataset.step === '1'")
    while work.get_attribute("data-state") != "ended":
        step = int(work.get_attribute("data-step"))
        answer_key(page, "y" if stored[step] == "yes" else "a" if stored[step] == "ambiguous" else "n")
        page.wait_for_function(
            "s => { const w = document.querySelector('[data-testid=work]');"
            " return w.dataset.state === 'ended' || w.dataset.step !== s; }",
            arg=str(step),
        )
    assert "Check done" in page.inner_text("[data-testid=done]")
    disagreement = Disagreement.objects.get()
    assert disagreement.step.index == 0 and disagreement.state == DisagreementState.OPEN

    review = new_page()
    login(review, reviewer)
    review.get_by_role("link", name="Adjudication").first.click()
    card = review.get_by_test_id(f"disagreement-{disagreement.pk}")
    assert card.get_by_test_id("stored").inner_text() == "yes"
    assert card.get_by_test_id("checker").inner_text() == "no"
    assert card.locator("svg rect.region.pending").count() == 1
    shot(review, "adjudication")
    review.set_viewport_size({"width": 390, "height": 844})
    assert review.evaluate("document.documentElement.scrollWidth") <= 390
    shot(review, "adjudication-phone")
    card.get_by_test_id("decide-no").click()
    assert "cut after it and proposed again" in review.inner_text(".messages")
    assert review.get_by_test_id("empty").is_visible()
    stream.refresh_from_db()
    assert stream.state == StreamState.PENDING and stream.steps.get(index=0).answer == "no"
    assert stream.lease_holder_id is None


def test_an_admin_is_refused_with_the_reason_then_publishes_and_sees_the_card(
    annotated_test_images, unannotated_test_images, make_test, operators, users, new_page
):
    admin = users[Role.ADMIN]
    # Three images the oracle truths, one an operator truths.
    images = [*annotated_test_images[:3], unannotated_test_images[0]]
    test = make_test(images, name="Street test A")
    page = new_page()
    login(page, admin)
    page.get_by_role("link", name="Tests").first.click()
    page.get_by_role("link", name="Street test A").click()
    page.get_by_test_id("start").click()
    assert "Truthing started." in page.inner_text(".messages")
    assert "3 of 3 oracle-truthed streams ended" in page.inner_text("[data-testid=automatic-progress]")
    # Publish is disabled while the test cannot be published, and the card says why.
    assert page.get_by_test_id("publish").is_disabled()
    shot(page, "card-refused")
    assert "1 stream has not ended" in page.inner_text("[data-testid=blockers]")
    truth(operators[0], operator_next(user=operators[0]))
    page.reload()
    # Publish freezes the test: the page asks first (issue 38), and "Cancel" keeps it as it is.
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_test_id("publish").click()
    page.wait_for_timeout(300)
    assert asked and "Its questions and truths are frozen" in asked[0]
    test.refresh_from_db()
    assert test.state == TestState.TRUTHING
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("publish").click()
    assert "Published" in page.inner_text(".messages")
    assert page.get_by_test_id("state").inner_text().lower() == "published"
    assert "4 (4 ended; 3 by the oracle; 1 by operators)" in page.inner_text("[data-figure=streams]")
    test.refresh_from_db()
    assert test.state == TestState.PUBLISHED
    for plot in ("lengths", "kinds", "rates", "blind"):
        figure = page.get_by_test_id(f"plot-{plot}").locator("svg.plot")
        assert figure.is_visible() and figure.bounding_box()["height"] > 40, plot
    assert page.locator("[data-testid=plot-kinds] rect.plot-bar").count() == 6
    with page.expect_download() as download:
        page.get_by_test_id("export").click()
    assert download.value.suggested_filename == f"test-{test.pk}.json"
    shot(page, "card")
    page.set_viewport_size({"width": 390, "height": 844})
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the card scrolls sideways ({width} px)"
    shot(page, "card-phone")
