"""Publishing a practice test (issue 38, item 9; decision 0075): through the API, the test's card and the
Django admin (its add, change and action); a practice test and a scored test never share an image; and
one system taking a practice test twice is dealt fresh oracle streams each time."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from evaluation.models import Session
from evaluation.selectors.plans import plan_of
from evaluation.services.systems import system_create, system_token_create
from tests.evaluation.conftest import build_test
from truthing.models import Test, TestState
from truthing.services import lifecycle
from vtt_site.errors import ConflictError


def truthing_test(name: str) -> Test:
    return build_test(name=name, state="truthing")


def same_pictures(test: Test, other: Test) -> None:
    """Make the first image of `test` the same picture as the first of `other` (another upload of it)."""
    from annotations.models import Image

    mine, theirs = (t.test_images.get(position=0).image_id for t in (test, other))
    Image.objects.filter(pk__in=[mine, theirs]).update(content_hash="ab" * 32)


@pytest.mark.django_db
@pytest.mark.parametrize("first_practice", [False, True])
def test_a_practice_test_and_a_scored_test_never_share_a_picture(api, users, first_practice):
    first = lifecycle.publish_test(test=truthing_test("first"), practice=first_practice)
    second = truthing_test("second")
    same_pictures(second, first)
    shared = second.test_images.get(position=0).image.original_name
    api.as_user(users[Role.ADMIN])

    refused = api.post(
        f"/api/v1/truthing/tests/{second.pk}/publish/", {"practice": not first_practice}, format="json"
    )
    assert refused.status_code == 409, refused.content
    body = refused.json()
    assert body["code"] == "practice_shares_images"
    kind, other = ("scored", "practice") if first_practice else ("practice", "scored")
    assert body["message"].startswith(
        f"second cannot be published as a {kind} test: 1 of its images is in a published {other} test: "
        f"{shared} (in first)."
    )
    assert body["fields"] == {"images": [f"{shared} (in first)"]}
    second.refresh_from_db()
    assert (second.state, second.practice) == (TestState.TRUTHING, False)
    # Of the same kind as the first, it may share its pictures (two scored tests, two practice tests).
    published = api.post(
        f"/api/v1/truthing/tests/{second.pk}/publish/", {"practice": first_practice}, format="json"
    )
    assert published.status_code == 200, published.content
    assert published.json()["practice"] is first_practice and published.json()["state"] == "published"


@pytest.mark.django_db
def test_a_test_made_as_practice_is_published_as_practice_unless_told_otherwise(api, users):
    api.as_user(users[Role.ADMIN])
    test = truthing_test("made as practice")
    Test.objects.filter(pk=test.pk).update(practice=True)
    published = api.post(f"/api/v1/truthing/tests/{test.pk}/publish/", {}, format="json")
    assert published.status_code == 200 and published.json()["practice"] is True
    card = api.get(f"/api/v1/truthing/tests/{test.pk}/").json()
    assert card["test"]["practice"] is True
    bad = api.post(
        f"/api/v1/truthing/tests/{truthing_test('x').pk}/publish/", {"practice": "maybe"}, format="json"
    )
    assert bad.status_code == 400 and "practice" in bad.json()["fields"]


@pytest.mark.django_db
def test_the_card_publishes_a_practice_test_and_says_so_in_the_lists(client, users):
    client.force_login(users[Role.ADMIN])
    test = truthing_test("carded")
    card = client.get(f"/tests/{test.pk}/").content.decode()
    assert 'name="practice" data-testid="publish-practice">' in card  # the box, not ticked
    response = client.post(f"/tests/{test.pk}/publish/", {"practice": "on"}, follow=True)
    assert "Published: vision systems may take it (a practice test)." in response.content.decode()
    test.refresh_from_db()
    assert (test.state, test.practice) == (TestState.PUBLISHED, True)
    card = client.get(f"/tests/{test.pk}/").content.decode()
    assert 'data-testid="practice">practice test</span>' in card
    assert 'data-testid="practice-note"' in card
    listed = client.get("/tests/").content.decode()
    assert f'data-testid="test-{test.pk}"' in listed and 'data-testid="practice">practice</span>' in listed

    scored = truthing_test("scored on the card")
    client.post(f"/tests/{scored.pk}/publish/")  # the box left empty
    scored.refresh_from_db()
    assert (scored.state, scored.practice) == (TestState.PUBLISHED, False)


@pytest.mark.django_db
def test_the_card_shows_why_a_practice_test_is_refused(client, users):
    client.force_login(users[Role.ADMIN])
    scored = lifecycle.publish_test(test=truthing_test("scored"))
    practice = truthing_test("practice")
    same_pictures(practice, scored)
    page = client.post(f"/tests/{practice.pk}/publish/", {"practice": "on"}, follow=True).content.decode()
    assert "practice cannot be published as a practice test: 1 of its images is in a published scored" in page
    practice.refresh_from_db()
    assert practice.state == TestState.TRUTHING


@pytest.mark.django_db
def test_the_admin_makes_changes_and_publishes_a_practice_test(
    client, users, statistics, annotated_test_images
):
    client.force_login(users[Role.ADMIN])
    added = client.post(
        "/admin/truthing/test/add/",
        {
            "name": "Practice in the admin",
            "practice": "on",
            "statistics": statistics.pk,
            "images": [annotated_test_images[0].pk],
            "streams_per_image": 1,
            "seed": 0,
        },
    )
    assert added.status_code == 302, added.content.decode()[:2000]
    test = Test.objects.get(name="Practice in the admin")
    assert (test.state, test.practice) == (TestState.DRAFT, True)

    # The change page: the kind may change until the test is published.
    change = f"/admin/truthing/test/{test.pk}/change/"
    assert client.get(change).status_code == 200
    saved = client.post(
        change, {"name": "Practice in the admin", "description": "renamed later", "open_streams": 8}
    )
    assert saved.status_code == 302, saved.content.decode()[:2000]
    test.refresh_from_db()
    assert (test.description, test.practice) == ("renamed later", False)

    hand_built = truthing_test("by the action")
    action = client.post(
        "/admin/truthing/test/",
        {"action": "publish_practice", "_selected_action": [hand_built.pk]},
        follow=True,
    )
    shown = [str(message) for message in action.context["messages"]]
    assert shown[-1] == "by the action: published as a practice test.", shown
    hand_built.refresh_from_db()
    assert (hand_built.state, hand_built.practice) == (TestState.PUBLISHED, True)
    # Published, its change page is read-only: its kind can no longer change.
    frozen = f"/admin/truthing/test/{hand_built.pk}/change/"
    assert client.get(frozen).status_code == 200
    assert client.post(frozen, {"name": "by the action", "description": ""}).status_code == 403
    hand_built.refresh_from_db()
    assert hand_built.practice is True


@pytest.mark.django_db
def test_a_test_published_meanwhile_keeps_its_kind():
    test = lifecycle.publish_test(test=truthing_test("published meanwhile"))
    with pytest.raises(ConflictError):
        lifecycle.describe_test(test_id=test.pk, name=test.name, description="", practice=True)
    test.refresh_from_db()
    assert test.practice is False


@pytest.mark.django_db(transaction=True)
def test_one_system_takes_an_oracle_practice_test_twice_and_is_dealt_fresh_streams(
    make_test, annotated_test_images, make_user, token_client
):
    test = lifecycle.publish_test(
        test=lifecycle.start_test(test=make_test(annotated_test_images, seed=5)), practice=True
    )
    system = system_create(owner=make_user(Role.VISION_SYSTEM_OWNER, username="ann"), name="ann's")
    client = token_client(system_token_create(system=system, name="run")[1])
    sessions = []
    for _ in range(2):
        enrolled = client.post(f"/api/v1/evaluation/tests/{test.pk}/sessions/", {}, format="json")
        assert enrolled.status_code == 201, enrolled.content
        session = Session.objects.get(pk=enrolled.json()["id"])
        answer_all(client, session)
        sessions.append(session)
    plans = [plan_of(session) for session in sessions]
    assert all(len(plan.streams) == test.test_images.count() and plan.steps for plan in plans)
    # Fresh streams, as a scored session's: no question of the first is a question of the second.
    assert not {s.step_id for s in plans[0].steps} & {s.step_id for s in plans[1].steps}
    assert [s.question for s in plans[0].steps] != [s.question for s in plans[1].steps]


def answer_all(client, session: Session) -> None:
    """Answer every question of the session, through the API."""
    question = f"/api/v1/evaluation/sessions/{session.pk}/question/"
    current = client.get(question).json()["current"]
    while current is not None:
        response = client.post(
            f"/api/v1/evaluation/sessions/{session.pk}/answers/",
            {"stream": current["stream"], "step": current["step"], "answer": "yes"},
            format="json",
        )
        assert response.status_code == 200, response.content
        # The stream's next question, or another open stream's (decision 0085): several are open at once.
        current = response.json()["next"] or client.get(question).json()["current"]
    session.refresh_from_db()
    assert session.state == "finished"
