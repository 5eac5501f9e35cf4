"""The Python client (clients/python) against a live server started by the test suite: a whole session,
a crash and a resume, retries on 429 and 5xx, typed questions and images."""

from __future__ import annotations

import httpx
import pytest
from vtt_client import ApiError, AttributeQuestion, Client, ExistQuestion, UniqueQuestion

from evaluation.models import Answer, Session
from tests.evaluation.conftest import build_test

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def test_id(db):
    return build_test(name="client test").pk


def test_a_whole_session_in_a_few_lines(live_server, system_token, test_id):
    client = Client(live_server.url, system_token, progress=True)
    session = client.session(test_id)
    kinds = []
    for question in session.questions():
        kinds.append(type(question))
        assert question.pil_image().size == (question.image.width, question.image.height)
        if isinstance(question, ExistQuestion):
            assert question.region.x1 == 64.0
        if isinstance(question, AttributeQuestion):
            assert isinstance(question.label_question(question.label), UniqueQuestion)
        session.answer(question, True)
    assert kinds[:2] == [ExistQuestion, UniqueQuestion]
    score = session.score()
    assert (score.accuracy.successes, score.accuracy.trials) == (7, 11) and score.complete
    # About one request per question: the answer brings the next question; one image per stream.
    assert client.requests <= 11 + 3 + 3
    client.close()


def test_a_crashed_run_resumes_where_the_server_says(live_server, system_token, test_id):
    crashed = Client(live_server.url, system_token, progress=False)
    first = crashed.session(test_id)
    for n, question in enumerate(first.questions()):
        first.answer(question, False)
        if n == 2:
            break  # the program crashes here
    crashed.close()
    resumed = Client(live_server.url, system_token, progress=False)
    again = resumed.session(test_id)
    assert again.id == first.id
    question = again.current()
    assert (question.stream, question.step) == (0, 3)
    for question in again.questions():
        again.answer(question, False)
    assert Session.objects.get(pk=first.id).state == "finished"
    assert Answer.objects.filter(session_id=first.id).count() == 11
    resumed.close()


class Flaky(httpx.BaseTransport):
    """Refuses every other request with 429 or 503 before passing it on to the real server, and loses
    the response of every fourth one that reached it (a 502 after the server did the work)."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.calls = 0
        self.refused = 0

    def handle_request(self, request):
        self.calls += 1
        if self.calls % 2:
            self.refused += 1
            status = 429 if self.refused % 2 else 503
            return httpx.Response(
                status, headers={"Retry-After": "0"}, json={"code": "throttled", "message": "x", "fields": {}}
            )
        response = self.inner.handle_request(request)
        if self.calls % 4 == 0:
            response.read()
            self.refused += 1
            return httpx.Response(502, json={"code": "server_error", "message": "lost", "fields": {}})
        return response


def test_429_and_5xx_are_retried_with_backoff_and_answers_are_stored_once(live_server, system_token, test_id):
    flaky = Flaky()
    client = Client(live_server.url, system_token, progress=False, backoff=0.001, transport=flaky)
    session = client.session(test_id)
    for question in session.questions():
        session.answer(question, True)
    client.close()
    flaky.inner.close()
    assert flaky.refused > 10
    assert Answer.objects.filter(session_id=session.id).count() == 11


def test_a_systems_page_through_the_client(live_server, system, system_token, test_id, make_user):
    from accounts.roles import Role
    from evaluation.services.systems import system_create

    client = Client(live_server.url, system_token, progress=False)
    session = client.session(test_id)
    for question in session.questions():
        session.answer(question, True)
    page = client.system_scores(system.pk)
    assert (page.system_id, page.name, page.owner, page.baseline) == (system.pk, "my system", "owner", "")
    assert page.left_out == []
    (scored,) = page.sessions
    assert (scored.session, scored.test_id, scored.test_name) == (session.id, test_id, "client test")
    assert (scored.state, scored.test_state) == ("finished", "published") and scored.ended_at is not None
    assert (scored.accuracy.successes, scored.accuracy.trials) == (7, 11)
    assert sum(p.trials for p in scored.by_kind.values()) == 11 and scored.first_mistake.streams == 3
    # Its own system: stream by stream, even on a test that can still be taken.
    assert scored.streams_withheld == "" and [s.questions for s in scored.streams] == [4, 5, 2]
    assert scored.streams[0].first_mistake == 3  # yes to stream 0's third question, whose truth is no
    private = system_create(
        owner=make_user(Role.VISION_SYSTEM_OWNER, username="rival"), name="x", public=False
    )
    with pytest.raises(ApiError) as refused:
        client.system_scores(private.pk)
    assert (refused.value.status, refused.value.code) == (404, "system_not_found")
    client.close()


def test_the_client_waits_while_its_sessions_streams_are_prepared():
    """A 409 `session_dealing` is waited out as its Retry-After says; any other 409 is raised."""
    from vtt_client.client import Session as ClientSession

    replies = iter(
        [
            httpx.Response(
                409, json={"code": "session_dealing", "message": "1 of 6 ready"}, headers={"Retry-After": "0"}
            ),
            httpx.Response(
                409, json={"code": "session_dealing", "message": "5 of 6 ready"}, headers={"Retry-After": "0"}
            ),
            httpx.Response(200, json={"session": 1, "state": "finished", "answered": 0, "current": None}),
            httpx.Response(409, json={"code": "session_over", "message": "over"}),
        ]
    )
    seen = []

    def handle(request):
        seen.append(request.url.path)
        return next(replies)

    client = Client("http://vtt.test", "secret", progress=False, transport=httpx.MockTransport(handle))
    assert ClientSession(client, {"id": 1}).current() is None
    assert seen == ["/api/v1/evaluation/sessions/1/question/"] * 3
    with pytest.raises(ApiError) as error:
        ClientSession(client, {"id": 1}).current()
    assert error.value.code == "session_over"


def test_the_examples_system_runs_without_a_warning():
    """The README's example system reads a region's brightness without Pillow's deprecated calls
    (issue 38: it printed a DeprecationWarning for getdata), and says no for an empty region."""
    import importlib.util
    import warnings
    from pathlib import Path

    from PIL import Image as PILImage
    from vtt_client.types import Image, Region

    path = Path(__file__).parents[2] / "clients/python/examples/take_a_test.py"
    spec = importlib.util.spec_from_file_location("take_a_test", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    picture = PILImage.new("RGB", (40, 30), (200, 200, 200))
    PILImage.Image.paste(picture, (0, 0, 0), (0, 0, 20, 30))  # dark left half

    def exist(box):
        return ExistQuestion("exist", 0, 0, 1, "", Image(1, 40, 30, ""), region=Region("r", box))

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert example.my_system(picture, exist((20, 0, 20, 30))) is True
        assert example.my_system(picture, exist((0, 0, 20, 30))) is False
        assert example.my_system(picture, exist((5, 5, 0, 10))) is False


def test_the_streams_history_and_p_yes_through_the_client(live_server, system_token, test_id):
    """An answer may carry the system's probability of yes, echoed and kept; the current stream's earlier
    steps come back from the server as typed entries, with the truths and the labels made."""
    client = Client(live_server.url, system_token, progress=False)
    session = client.session(test_id)
    assert session.history() == []  # a stream's first step
    given = [(True, 0.8), (False, 0.25)]
    for (yes, p_yes), question in zip(given, session.questions(), strict=False):
        assert session.answer(question, yes, p_yes=p_yes).p_yes == p_yes
    first, second = session.history()
    assert (first.step, first.answer, first.p_yes, first.truth, first.label) == (0, True, 0.8, True, None)
    assert (second.step, second.answer, second.p_yes, second.truth, second.label) == (
        1,
        False,
        0.25,
        True,
        "person 1",
    )
    assert isinstance(second.question, UniqueQuestion) and second.text == "QTEXT-s0-i1-unique"
    current = session.current()
    assert (current.stream, current.step) == (0, 2)
    client.close()


def test_an_instantiation_question_names_the_labels_it_excludes():
    from vtt_client.types import question_from

    region = {"id": "whole", "box": [0, 0, 64, 48]}
    older = question_from({"question": {"kind": "exist", "type": "vehicle", "region": region}})
    newer = question_from(
        {"question": {"kind": "unique", "type": "vehicle", "region": region, "excluding": ["vehicle 1"]}}
    )
    assert older.excluding == () and newer.excluding == ("vehicle 1",)


def test_a_platform_without_the_history_is_said_to_be_older_than_the_client():
    from vtt_client import UnsupportedServer
    from vtt_client.client import Session as ClientSession

    def handle(request):
        return httpx.Response(200, json={"session": 1, "state": "active", "answered": 0, "current": None})

    client = Client("http://vtt.test", "secret", progress=False, transport=httpx.MockTransport(handle))
    with pytest.raises(UnsupportedServer, match="older than this client"):
        ClientSession(client, {"id": 1}).history()


def test_a_session_that_catches_up_with_its_deal_waits_for_the_next_stream():
    """The answer to the last step dealt so far has no next question and does not finish the session:
    the client asks again, waits out the 409 session_dealing, and goes on (issue 36, point 7)."""
    image = {"id": 1, "width": 64, "height": 48, "url": "/i"}

    def shown(stream):
        question = {"kind": "attr", "label": "person 1", "attributes": ["walking"]}
        return {"stream": stream, "streams": 2, "step": 0, "image": image, "question": question, "text": "?"}

    def answered(finished):
        return {
            **{"answer": "yes", "correct_answer": "yes", "correct": True, "label": None, "next": None},
            **{"stream_ended": True, "session_finished": finished},
        }

    replies = iter(
        [
            httpx.Response(200, json={"session": 1, "state": "active", "answered": 0, "current": shown(0)}),
            httpx.Response(200, json=answered(False)),
            httpx.Response(
                409, json={"code": "session_dealing", "message": "1 of 2"}, headers={"Retry-After": "0"}
            ),
            httpx.Response(200, json={"session": 1, "state": "active", "answered": 1, "current": shown(1)}),
            httpx.Response(200, json=answered(True)),
        ]
    )
    client = Client(
        "http://vtt.test", "secret", progress=False, transport=httpx.MockTransport(lambda r: next(replies))
    )
    from vtt_client.client import Session as ClientSession

    session = ClientSession(client, {"id": 1})
    taken = []
    for question in session.questions():
        taken.append(question.stream)
        session.answer(question, True)
    assert taken == [0, 1]


def test_the_client_takes_a_practice_test_again_and_resumes_an_open_run(live_server, system_token):
    """A practice test is taken with the same few lines as any test: `session()` enrols a new session
    once the last is over, and resumes the open one after a crash (decision 0075)."""
    from truthing.services import lifecycle

    practice = lifecycle.publish_test(test=build_test(name="practice", state="truthing"), practice=True)
    client = Client(live_server.url, system_token, progress=False)
    assert {t["name"]: t["practice"] for t in client.tests()} == {"practice": True}
    first = client.session(practice.pk)
    assert first.data["practice"] is True
    for n, question in enumerate(first.questions()):
        first.answer(question, True)
        if n == 2:
            break  # the run crashes here
    resumed = client.session(practice.pk)
    assert resumed.id == first.id  # the open session, not a new one
    for question in resumed.questions():
        resumed.answer(question, True)
    assert resumed.score().accuracy.trials == 11
    again = client.session(practice.pk)
    assert again.id != first.id  # practising again: a new session
    assert sum(1 for question in again.questions() if again.answer(question, False)) == 11
    assert Session.objects.filter(test_id=practice.pk).count() == 2
    client.close()
