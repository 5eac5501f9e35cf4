"""The truthing pages on the server: who gets which page, what the work page embeds, adjudication and the
test transitions posted as forms, the card's figures and plots, the operators' statistics."""

from __future__ import annotations

import json
import re

import pytest

from accounts.roles import Role
from annotations.models import Image
from truthing.models import Disagreement, DisagreementState, Stream, StreamState, TestState
from truthing.selectors import work_view
from truthing.services import lifecycle
from truthing.services.checks import check_answer
from truthing.services.queue import operator_next
from truthing.services.streams import step_answer

pytestmark = pytest.mark.django_db(transaction=True)


def page_data(response) -> dict:
    match = re.search(
        r'<script id="page-data" type="application/json">(.*?)</script>', response.content.decode(), re.S
    )
    return json.loads(match.group(1))


def truth(user, stream, answer_of=lambda step: "no"):
    while True:
        stream.refresh_from_db()
        if stream.state == StreamState.ENDED:
            return
        step = stream.steps.get(answer="")
        step_answer(stream_id=stream.pk, user=user, index=step.index, answer=answer_of(step), seconds=2.0)


def test_take_next_opens_the_held_stream_with_its_question_and_nobody_else_gets_it(
    client, make_test, unannotated_test_images, operators, users
):
    lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    # A test started before tests refused images without pixels: its image lost them since.
    Image.objects.filter(pk=unannotated_test_images[0].pk).update(file="")
    operator, other = operators[:2]
    client.force_login(operator)
    home = client.get("/truthing/")
    assert home.status_code == 200 and b'data-testid="take-next"' in home.content
    response = client.post("/truthing/next/")
    stream = Stream.objects.get(lease_holder=operator)
    assert response.status_code == 302 and response["Location"] == f"/truthing/streams/{stream.pk}/"
    page = client.get(response["Location"])
    data = page_data(page)
    assert data["work"]["kind"] == "stream" and data["work"]["state"] == "pending"
    assert data["work"]["pending"]["step"] == 0 and data["work"]["pending"]["text"].endswith("?")
    assert data["urls"]["answer"] == f"/api/v1/truthing/streams/{stream.pk}/answer/"
    assert data["urls"]["undo"] == f"/api/v1/truthing/streams/{stream.pk}/undo/"
    # An image without its picture: the page says so instead of a blank.
    assert b'data-testid="no-pixels"' in page.content
    assert b'data-testid="undo"' in page.content and b"<script>" not in page.content
    # Another operator gets nothing (the only stream is held) and cannot open it.
    client.force_login(other)
    nothing = client.post("/truthing/next/", follow=True)
    assert "Nothing is waiting for an operator" in nothing.content.decode()
    refused = client.get(f"/truthing/streams/{stream.pk}/", follow=True)
    assert refused.redirect_chain[-1][0] == "/truthing/" and "not yours" in refused.content.decode()
    # Roles without a part in truthing get a 403 that says which role it needs.
    client.force_login(users[Role.ANNOTATOR])
    forbidden = client.get("/truthing/")
    assert forbidden.status_code == 403 and "operator role" in forbidden.content.decode()


def _disagreement(settings, make_test, images, operators):
    settings.TRUTHING_CHECK_SHARE = 1.0
    test = lifecycle.start_test(test=make_test(images[:1]))
    first, checker = operators[:2]
    stream = operator_next(user=first)
    truth(first, stream, lambda step: "yes" if step.index == 0 else "no")
    check = operator_next(user=checker)
    while (pending := work_view(check)["pending"]) is not None:
        stored = stream.steps.get(index=pending["step"]).answer
        given = "no" if pending["step"] == 0 else stored
        check_answer(check_id=check.pk, user=checker, index=pending["step"], answer=given, seconds=1.0)
        check.refresh_from_db()
    return test, stream, check


def test_a_check_opens_on_the_same_page_with_its_own_undo(
    client, settings, make_test, unannotated_test_images, operators
):
    settings.TRUTHING_CHECK_SHARE = 1.0
    lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    stream = operator_next(user=operators[0])
    truth(operators[0], stream)
    client.force_login(operators[1])
    response = client.post("/truthing/next/")
    assert re.fullmatch(r"/truthing/checks/\d+/", response["Location"])
    page = client.get(response["Location"])
    data = page_data(page)
    check_id = data["work"]["id"]
    assert (
        data["work"]["kind"] == "check"
        and data["urls"]["undo"] == f"/api/v1/truthing/checks/{check_id}/undo/"
    )
    assert data["urls"]["answer"].startswith("/api/v1/truthing/checks/")
    assert b'data-testid="undo"' in page.content and b"pick-hint" not in page.content


def test_a_reviewer_adjudicates_on_the_queue_page_and_the_stream_goes_back(
    client, settings, make_test, unannotated_test_images, operators, users
):
    _, stream, _ = _disagreement(settings, make_test, unannotated_test_images, operators)
    disagreement = Disagreement.objects.get()
    client.force_login(users[Role.REVIEWER])
    page = client.get("/truthing/disagreements/")
    text = page.content.decode()
    assert page.status_code == 200 and f'data-testid="disagreement-{disagreement.pk}"' in text
    assert disagreement.step.text in text and "1 disagreement open" in text
    # An operator may not adjudicate.
    client.force_login(operators[2])
    assert client.get("/truthing/disagreements/").status_code == 403
    assert (
        client.post(f"/truthing/disagreements/{disagreement.pk}/decide/", {"answer": "no"}).status_code == 403
    )
    client.force_login(users[Role.REVIEWER])
    decided = client.post(f"/truthing/disagreements/{disagreement.pk}/decide/", {"answer": "no"}, follow=True)
    assert "cut after it and proposed again" in decided.content.decode()
    assert Disagreement.objects.get().state == DisagreementState.RESOLVED
    stream.refresh_from_db()
    assert stream.state == StreamState.PENDING and stream.lease_holder_id is None
    again = client.post(f"/truthing/disagreements/{disagreement.pk}/decide/", {"answer": "yes"}, follow=True)
    assert "Not decided: This disagreement was decided already" in again.content.decode()


def test_an_admin_is_told_what_keeps_a_test_from_publishing_then_publishes_and_sees_the_card(
    client, make_test, annotated_test_images, unannotated_test_images, operators, users
):
    test = make_test([annotated_test_images[0], annotated_test_images[1], unannotated_test_images[0]])
    admin = users[Role.ADMIN]
    client.force_login(admin)
    draft = client.get(f"/tests/{test.pk}/")
    assert b'data-testid="start"' in draft.content and b'data-testid="publish"' not in draft.content
    started = client.post(f"/tests/{test.pk}/start/", follow=True)
    assert "Truthing started." in started.content.decode()
    text = started.content.decode()
    # The oracle truthed its two streams at once (eager tasks); the operator's stream is open.
    assert "Automatic truthing (done): 2 of 2 oracle-truthed streams ended" in text
    assert "1 stream has not ended" in text
    refused = client.post(f"/tests/{test.pk}/publish/", follow=True)
    assert "cannot be published yet: 1 stream has not ended" in refused.content.decode()
    truth(operators[0], operator_next(user=operators[0]), lambda step: "yes" if step.index % 3 == 0 else "no")
    published = client.post(f"/tests/{test.pk}/publish/", follow=True)
    assert "Published" in published.content.decode()
    test.refresh_from_db()
    assert test.state == TestState.PUBLISHED
    card = published.content.decode()
    for plot in ("lengths", "kinds", "rates", "blind"):
        assert re.search(rf'data-testid="plot-{plot}"><svg class="plot" viewBox', card), plot
    answered = lifecycle.Stream.objects.filter(test_image__test=test).count()
    assert answered == 3 and re.search(r'data-figure="streams">3 \(3 ended', card)
    assert 'data-testid="archive"' in card and f"/api/v1/truthing/tests/{test.pk}/export/" in card
    assert " style=" not in card and "<script>" not in card
    # Operators and reviewers read the card; only admins change the test.
    client.force_login(operators[0])
    assert client.get(f"/tests/{test.pk}/").status_code == 200
    assert b'data-testid="admin-actions"' not in client.get(f"/tests/{test.pk}/").content
    assert client.post(f"/tests/{test.pk}/archive/").status_code == 403
    listing = client.get("/tests/").content.decode()
    assert f'data-testid="test-{test.pk}"' in listing and "published" in listing


def test_operator_statistics_are_for_admins(
    client, settings, make_test, unannotated_test_images, operators, users
):
    _disagreement(settings, make_test, unannotated_test_images, operators)
    client.force_login(users[Role.REVIEWER])
    assert client.get("/truthing/operators/").status_code == 403
    client.force_login(users[Role.ADMIN])
    page = client.get("/truthing/operators/").content.decode()
    row = re.search(r'<tr data-operator="op0">(.*?)</tr>', page, re.S).group(1)
    # op0's stream was checked by op1, who disagreed on one question.
    assert "Agreement" in page and re.search(r"of \d+</span>", row)
    assert re.search(r"<td>2\.0</td>", row), row


def test_navigation_shows_each_role_its_truthing_pages(client, users):
    expected = {
        Role.OPERATOR: {"/truthing/", "/tests/"},
        Role.REVIEWER: {"/truthing/disagreements/", "/tests/"},
        Role.ADMIN: {"/truthing/", "/truthing/disagreements/", "/tests/", "/truthing/operators/"},
        Role.ANNOTATOR: set(),
    }
    for role, links in expected.items():
        client.force_login(users[role])
        nav = re.search(r"<nav>(.*?)</nav>", client.get("/").content.decode(), re.S).group(1)
        shown = {
            href for href in re.findall(r'href="([^"]+)"', nav) if href.startswith(("/truthing", "/tests"))
        }
        assert shown == links, role
