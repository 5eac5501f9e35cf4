"""`vtt take` with several streams at once (issue 50, item 2; decision 0086): the streams run side by
side, each its own chat; a run cut midway and resumed sends, stream by stream, byte for byte the prompts
of a run never cut; fewer requests at once after a 429, more again as they stop."""

from __future__ import annotations

import json

from vtt_client.runner.aimd import Aimd

from evaluation.models import Session
from tests.clients.test_runner import logged, stored, take
from truthing.models import Test


def test_a_run_of_three_streams_at_once_cut_midway_resumes_each_stream_as_if_never_cut(
    live_server, secrets, owner, runner_test, chat_servers, tmp_path, capsys, monkeypatch
):
    test, expected = runner_test
    Test.objects.filter(pk=test.pk).update(open_streams=3)
    server = chat_servers(expected=expected, die_after=6)
    assert take(live_server, test, server, tmp_path / "cut") == 1
    capsys.readouterr()
    session = Session.objects.get(test=test)
    assert session.open_streams == 3 and 6 <= len(stored(session.pk)) < 11
    server.revive()
    assert take(live_server, test, server, tmp_path / "cut") == 0
    # The chat server checks every request's history against the stream's: nothing of another stream.
    assert server.violations == []
    cut = logged(tmp_path / "cut", session.pk)
    assert len(stored(session.pk)) == 11 and sorted((r["stream"], r["step"]) for r in cut) == sorted(
        (e.stream, e.step) for e in expected.values()
    )
    runs = [json.loads(line) for line in (tmp_path / "cut" / f"session-{session.pk}.jsonl").open()]
    assert [r["concurrency"] for r in runs if r["event"] == "run"] == [3, 3]

    from evaluation.services.systems import system_create, system_token_create

    other = system_create(owner=owner, name="never cut")
    monkeypatch.setenv("VTT_TOKEN", system_token_create(system=other, name="whole run")[1])
    whole_server = chat_servers(expected=expected)
    assert take(live_server, test, whole_server, tmp_path / "whole") == 0
    whole = logged(tmp_path / "whole", Session.objects.get(test=test, system=other).pk)
    assert sorted((r["stream"], r["step"], r["prompt_sha256"]) for r in cut) == sorted(
        (r["stream"], r["step"], r["prompt_sha256"]) for r in whole
    )
    # The streams ran side by side: the uninterrupted run's log interleaves them.
    order = [r["stream"] for r in whole]
    assert order != sorted(order)


def test_a_429_halves_the_requests_at_once_and_answers_raise_them_again():
    limit = Aimd(8)
    limit.throttled()
    assert limit.current == 4
    limit.throttled()  # the same burst: counted once
    assert limit.current == 4
    for _ in range(4):
        limit.acquire()
        limit.release(retried=True)  # a request retried after its 429: no increase
    assert limit.current == 4
    limit.throttled()
    assert limit.current == 2
    for _ in range(40):
        limit.acquire()
        limit.release()
    assert limit.current == 8  # additive: back up to the ceiling, never above
    for _ in range(10):
        limit.throttled()
        for _ in range(8):
            limit.acquire()
            limit.release(retried=True)
    assert limit.current == 1  # never below one
