"""`vtt take` end to end: the command (vtt_client.runner.cli.main) takes a test built by build_test on the
live platform over HTTP, asking a real chat-completions server (chat_server.py) that checks every request
and answers by the region it is shown. A whole test with 429s, 500s, an unclear reply and a timeout; a
crash and a resume; the bad set-ups; blind runs and the other ways of showing the regions."""

from __future__ import annotations

import json
import time

import pytest
from vtt_client import Client
from vtt_client.runner.cli import main
from vtt_client.runner.take import prompt_sha256

from evaluation.models import Answer, Session, VisionSystem
from tests.clients.chat_server import Expected, rule
from tests.evaluation.conftest import build_test

pytestmark = pytest.mark.django_db(transaction=True)

# The designated region of each instantiation step, by (stream, index in build_test's DEFAULT_STREAMS),
# as [x, y, width, height]: the server says yes when a region's centre is left of x = 32.
REGIONS = {
    (0, 0): [4, 4, 24, 20],
    (0, 1): [36, 24, 24, 20],  # makes person 1 of stream 0
    (0, 4): [4, 26, 26, 18],
    (1, 0): [40, 4, 20, 18],
    (1, 1): [6, 6, 22, 16],  # person 1 of stream 1
    (1, 3): [34, 26, 26, 18],  # person 2 of stream 1
    (2, 0): [0, 0, 64, 48],  # the whole image: its centre is x = 32, so no
    (2, 1): [10.4, 9.6, 20, 20],  # unrounded, as the engine's regions are
}
SIZE = (64, 48)
UNCLEAR = "QTEXT-s1-i2-attr"  # the server never answers this one clearly


@pytest.fixture
def runner_test(db):
    """build_test's test with a region of its own for each instantiation step, and what the chat server
    is to expect of each question."""
    from truthing.models import Step
    from truthing.published import plans_forget

    test = build_test(name="runner test")
    steps = Step.objects.filter(stream__test_image__test=test).select_related("stream__test_image")
    for step in steps:
        box = REGIONS.get((step.stream.test_image.position, step.index))
        if box is not None:
            step.question = {**step.question, "region": {"id": f"r{step.index}", "box": box}}
            step.save(update_fields=["question"])
    plans_forget()
    return test, _expected(steps.order_by("stream__test_image__position", "index"))


def _expected(steps) -> dict[str, Expected]:
    expected: dict[str, Expected] = {}
    labels: dict[int, dict[str, tuple[int, int, int, int]]] = {}
    shown: dict[int, int] = {}
    for step in steps:
        if step.answer == "ambiguous":
            continue  # rejected when the test was built: never shown
        position = step.stream.test_image.position
        region = _corners(step.question["region"]["box"]) if "region" in step.question else None
        made = labels.setdefault(position, {})
        expected[step.text] = Expected(
            stream=position,
            step=shown.get(position, 0),
            text=step.text,
            truth=step.answer,
            region=region,
            labels=dict(made),
            colour=(position * 40, 100, 30),  # build_test's images are one colour each
            size=SIZE,
            made=step.label or None,
        )
        shown[position] = shown.get(position, 0) + 1
        if step.label:
            made[step.label] = region
    return expected


def _corners(box) -> tuple[int, int, int, int]:
    x, y, w, h = box
    return round(x), round(y), round(x + w), round(y + h)


def answer_by_rule(expected: Expected, *, region_shown: bool = True) -> str:
    if expected.text == UNCLEAR:
        return "no"  # the runner's rule for a reply not understood twice
    return rule(expected.text, expected.region if region_shown else None, SIZE[0])


@pytest.fixture
def secrets(monkeypatch, system_token):
    monkeypatch.setenv("VTT_TOKEN", system_token)
    monkeypatch.setenv("CHAT_KEY", "sk-test")


def take(live_server, test, server, log_dir, *options, model="test-vlm") -> int:
    return main(
        [
            *["take", "--url", live_server.url, "--test", str(test.pk)],
            *["openai", "--base-url", server.url, "--model", model, "--api-key-env", "CHAT_KEY"],
            *["--log-dir", str(log_dir), "--timeout", "0.4", "--max-retries", "1", "--backoff", "0.001"],
            # PNG: the chat server finds the drawn lines pixel by pixel (the default JPEG is within a few
            # levels of them: test_runner_parts.py).
            *["--image-format", "png"],
            *options,
        ]
    )


def logged(log_dir, session_id) -> list[dict]:
    lines = (log_dir / f"session-{session_id}.jsonl").read_text().splitlines()
    return [record for record in map(json.loads, lines) if record["event"] == "question"]


def stored(session_id) -> list[tuple[bool, bool]]:
    return list(
        Answer.objects.filter(session_id=session_id).order_by("ordinal").values_list("answer", "correct")
    )


def one_line(err: str) -> str:
    """stderr of a failed run: one line, no traceback, no library's name (besides the progress lines,
    and the warning of a platform that does not say what a system is shown)."""
    lines = [
        line for line in err.splitlines() if line.strip() and not line.startswith(("[", "vtt: warning:"))
    ]
    assert len(lines) == 1, err
    assert "Traceback" not in err and "openai" not in err.lower() and "httpx" not in err.lower()
    assert lines[0].startswith("vtt: ")
    return lines[0]


def test_a_whole_test_taken_end_to_end(
    live_server, system_token, secrets, runner_test, chat_servers, tmp_path, capsys
):
    test, expected = runner_test
    server = chat_servers(
        expected=expected,
        faults={2: "429", 5: "500", 7: "garbage", 10: "slow"},
        garbage_for={UNCLEAR},
        slow_seconds=0.8,
    )
    assert take(live_server, test, server, tmp_path) == 0, capsys.readouterr().err
    out = capsys.readouterr()
    assert server.violations == []
    assert "warning" not in out.err  # the platform says what the system is shown: the image
    session = Session.objects.get(test=test)
    records = logged(tmp_path, session.pk)
    # The session's stored answers are the log's, and the chat server's rule applied to the regions
    # it was shown: the pixels reached the model, drawn where the questions say.
    assert [(r["answer"] == "yes", r["correct"]) for r in records] == stored(session.pk)
    assert [r["answer"] for r in records] == [answer_by_rule(expected[r["text"]]) for r in records]
    assert [(r["stream"], r["step"]) for r in records] == sorted(
        (e.stream, e.step) for e in expected.values()
    )
    # The score the platform computed is the log's accuracy, and the summary says it.
    right = sum(r["correct"] for r in records)
    with Client(live_server.url, system_token, progress=False) as client:
        score = client.session(test.pk).score()
    assert (score.accuracy.successes, score.accuracy.trials, score.complete) == (right, 11, True)
    assert f"accuracy {right / 11:.3f} ({right} of 11 right" in out.out
    assert "logged: 11 questions" in out.out and "1 replies not understood" in out.out
    # One reply not understood twice (answered no, no p_yes); one unclear once, then read.
    unclear = [r for r in records if not r["parsed"]]
    assert [r["text"] for r in unclear] == [UNCLEAR] and unclear[0]["p_yes"] is None
    assert len(unclear[0]["replies"]) == 2
    assert sum(len(r["replies"]) == 2 for r in records) == 2
    # Each p_yes the runner gave is the one the platform stored with the answer.
    kept = Answer.objects.filter(session=session).order_by("ordinal").values_list("p_yes", flat=True)
    assert list(kept) == [r["p_yes"] for r in records]
    # The platform scored them, and the summary says how (one answer gave none: a partial coverage).
    given = [(r["p_yes"], r["truth"] == "yes") for r in records if r["p_yes"] is not None]
    brier = sum((p - y) ** 2 for p, y in given) / len(given)
    assert score.forecasts is not None and score.forecasts["brier"]["value"] == pytest.approx(brier)
    assert f"probabilities: Brier {brier:.3f}, log loss " in out.out
    assert f"(p given on {len(given)} of 11 questions)" in out.out
    # The 429, the 500 and the timeout were each retried once, and counted.
    assert sum(r["retries"] for r in records) == 3
    # p_yes is the logprobs' P(yes) / (P(yes) + P(no)) at the answer's token, agreeing with the answer.
    for record in records:
        if record["parsed"]:
            assert record["p_yes"] == pytest.approx(server.p_given[record["text"]], abs=1e-9)
            assert (record["p_yes"] > 0.5) == (record["answer"] == "yes")
        # What the server counted and what it was sent.
        assert [record["tokens_in"], record["tokens_out"]] == server.usage[record["text"]]
        assert record["prompt_sha256"] == prompt_sha256(server.first_prompt[record["text"]])
        assert record["truth"] == expected[record["text"]].truth
    # The progress on stderr: a line a stream (stderr is not a terminal here).
    assert [line.split("]")[1].split(",")[0] for line in out.err.splitlines() if line.startswith("[")] == [
        " stream 1 of 3",
        " stream 2 of 3",
        " stream 3 of 3",
    ]


def test_a_crashed_run_resumes_with_the_chat_rebuilt_from_the_server(
    live_server, secrets, owner, runner_test, chat_servers, tmp_path, capsys, monkeypatch
):
    """The chat server dies after 6 answers; the rerun goes on from the server's position, its chats
    rebuilt from the stream's history, byte for byte what an uninterrupted run sends."""
    test, expected = runner_test
    server = chat_servers(expected=expected, die_after=6)
    assert take(live_server, test, server, tmp_path / "crashed") == 1
    assert one_line(capsys.readouterr().err) == (
        f"vtt: Could not reach the model server at {server.url} (2 tries). The session keeps its 6 answers: "
        "run the same command again to go on."
    )
    session = Session.objects.get(test=test)
    assert len(stored(session.pk)) == 6
    server.revive()
    sent_before = len(server.requests)
    assert take(live_server, test, server, tmp_path / "crashed") == 0
    assert server.violations == []
    # The 7th question, stream 1's third, came with the stream's first two and their truths.
    first_again = server.requests[sent_before]["messages"]
    assert [m["content"] for m in first_again if m["role"] == "assistant"] == ["No.", "Yes."]
    assert "The correct answer was yes: that person is now called person 1." in str(
        first_again[-1]["content"]
    )
    crashed = logged(tmp_path / "crashed", session.pk)
    assert len(crashed) == 11 and len(stored(session.pk)) == 11

    from evaluation.services.systems import system_create, system_token_create

    other = system_create(owner=owner, name="uninterrupted")
    monkeypatch.setenv("VTT_TOKEN", system_token_create(system=other, name="uninterrupted run")[1])
    assert take(live_server, test, chat_servers(expected=expected), tmp_path / "whole") == 0
    whole = logged(tmp_path / "whole", Session.objects.get(test=test, system=other).pk)
    assert [(r["stream"], r["step"], r["prompt_sha256"]) for r in crashed] == [
        (r["stream"], r["step"], r["prompt_sha256"]) for r in whole
    ]


def test_bad_setups_say_so_in_one_line_and_leave_the_session_to_resume(
    live_server, secrets, runner_test, chat_servers, tmp_path, capsys, monkeypatch
):
    test, expected = runner_test
    server = chat_servers(expected=expected, die_after=3)
    assert take(live_server, test, server, tmp_path) == 1
    capsys.readouterr()
    session = Session.objects.get(test=test)
    server.revive()
    keeps = "The session keeps its 3 answers: run the same command again to go on."

    with monkeypatch.context() as env:
        env.delenv("CHAT_KEY")
        assert take(live_server, test, server, tmp_path) == 2
    assert one_line(capsys.readouterr().err) == (
        "vtt: Set CHAT_KEY to the model server's API key (a local server without keys takes any text: "
        "export CHAT_KEY=none)."
    )
    assert take(live_server, test, server, tmp_path, model="llava-nope") == 2
    assert one_line(capsys.readouterr().err) == (
        f"vtt: The model server at {server.url} has no model 'llava-nope' (it serves: test-vlm)."
    )
    server.hang, server.slow_seconds = True, 0.6
    assert take(live_server, test, server, tmp_path, "--timeout", "0.2") == 1
    assert one_line(capsys.readouterr().err) == (
        f"vtt: The model server at {server.url} did not answer within 0.2 s (2 tries). {keeps}"
    )
    assert len(stored(session.pk)) == 3
    server.hang = False
    assert take(live_server, test, server, tmp_path) == 0
    assert len(stored(session.pk)) == 11 and server.violations == []


def test_a_model_server_that_cannot_be_used_is_said_before_any_session_is_opened(
    live_server, secrets, runner_test, chat_servers, tmp_path, capsys, monkeypatch
):
    """Issue 46, item 5: a wrong --model, a refused key or a --base-url where nothing listens each opened
    a session (on a scored test: questions dealt, one of the owner's places used) before failing, and
    nothing listening was retried as a lost connection for about 50 s. They are checked first now."""
    from tests.serving import free_port

    test, expected = runner_test
    server = chat_servers(expected=expected)
    assert take(live_server, test, server, tmp_path, model="llava-nope") == 2
    assert one_line(capsys.readouterr().err) == (
        f"vtt: The model server at {server.url} has no model 'llava-nope' (it serves: test-vlm)."
    )
    monkeypatch.setenv("CHAT_KEY", "sk-wrong")
    assert take(live_server, test, server, tmp_path) == 2
    assert one_line(capsys.readouterr().err) == (
        f"vtt: The model server at {server.url} refused the API key (401)."
    )
    monkeypatch.setenv("CHAT_KEY", "sk-test")
    nowhere = f"http://127.0.0.1:{free_port()}/v1"
    started = time.monotonic()
    code = main(
        [
            *["take", "--url", live_server.url, "--test", str(test.pk)],
            *["openai", "--base-url", nowhere, "--model", "test-vlm", "--api-key-env", "CHAT_KEY"],
            *["--log-dir", str(tmp_path), "--max-retries", "6"],
        ]
    )
    assert (code, time.monotonic() - started < 5) == (2, True)
    assert one_line(capsys.readouterr().err) == (
        f"vtt: Nothing answers at {nowhere}: start the model server, or check --base-url."
    )
    assert not Session.objects.filter(test=test).exists()
    assert server.violations == []


def test_a_blind_run_is_shown_no_image_and_only_as_a_system_shown_text(
    live_server, system, secrets, runner_test, chat_servers, tmp_path, capsys
):
    test, expected = runner_test
    server = chat_servers(expected=expected, blind=True, drawn=False)
    assert take(live_server, test, server, tmp_path, "--blind") == 2
    assert one_line(capsys.readouterr().err) == (
        "vtt: 'my system' is registered as shown the image: a blind run (--blind) needs a system registered "
        "as shown text only."
    )
    assert not Session.objects.filter(test=test).exists()  # refused before enrolling
    VisionSystem.objects.filter(pk=system.pk).update(shown="text")
    assert take(live_server, test, server, tmp_path) == 2
    assert "registered as shown text only: run it with --blind" in one_line(capsys.readouterr().err)
    assert take(live_server, test, server, tmp_path, "--blind") == 0
    assert server.violations == []  # among them: an image on any turn
    records = logged(tmp_path, Session.objects.get(test=test).pk)
    # Blind, it still reads the regions in words (--show both): the same rule, without the pixels.
    assert [r["answer"] for r in records] == [answer_by_rule(expected[r["text"]]) for r in records]


@pytest.mark.parametrize("show", ["words", "drawn"])
def test_the_regions_are_shown_in_words_on_the_image_as_it_is_or_only_drawn(
    live_server, secrets, runner_test, chat_servers, tmp_path, show
):
    test, expected = runner_test
    server = chat_servers(expected=expected, words=show == "words", drawn=show == "drawn")
    assert take(live_server, test, server, tmp_path, "--show", show) == 0
    assert server.violations == []  # words: the image untouched; drawn: no region in words
    records = logged(tmp_path, Session.objects.get(test=test).pk)
    assert [r["answer"] for r in records] == [answer_by_rule(expected[r["text"]]) for r in records]
