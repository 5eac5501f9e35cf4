"""The model runner's parts (clients/python/vtt_client/runner), without the platform: reading replies and
logprobs, the retries, the openai backend against a real chat-completions server (chat_server.py), the
templates, the drawing and the chat. The whole command against the platform: test_runner.py."""

from __future__ import annotations

import io
import math
from argparse import Namespace
from types import SimpleNamespace

import pytest
from PIL import Image as PILImage
from vtt_client.runner import cli, conversation
from vtt_client.runner.conversation import Showing
from vtt_client.runner.drawing import LABEL_COLOURS, REGION_COLOUR, drawn_image
from vtt_client.runner.log import Progress
from vtt_client.runner.model import (
    Completion,
    Failure,
    ModelError,
    ModelSetupError,
    RetryPolicy,
    with_retries,
)
from vtt_client.runner.openai_chat import OpenAIChat
from vtt_client.runner.prompts import PromptError, load_prompts
from vtt_client.runner.replies import TokenLogprobs, agrees, p_yes_from, parse_reply
from vtt_client.runner.take import ask
from vtt_client.types import history_entry_from, question_from

MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Is it a question?"}]

# --- replies ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "read"),
    [
        ("yes", True),
        ("No", False),
        ("Yes.", True),
        ("**No**", False),
        ("   yes\n", True),
        ("YES!", True),
        ("Answer: yes", True),
        ("final answer - No.", False),
        ("`yes`", True),
        ("\u201cNo.\u201d", False),
        ("<think>Is it no? Maybe yes.</think>\n\nNo", False),
        ("<THINK>no</THINK> Yes", True),
        ("The reasoning left open.</think> yes", True),  # the opening tag was in the prompt
        ("Yes, there is a car on the left.", True),
        ("There is no car in the region.", False),  # says one of the two words only
        ("I think the answer is yes.", True),
        ("<think>Let me look at the region", None),  # cut off while reasoning
        ("Yes and no.", True),  # the first word decides
        ("It could be yes or no.", None),  # both, and neither first
        ("Nope", None),
        ("Not sure", None),
        ("", None),
        ("yesterday", None),
    ],
)
def test_a_reply_is_read_as_yes_no_or_unclear(reply, read):
    assert parse_reply(reply) is read


def _tokens(*pieces):
    """Tokens whose alternatives are given as (text, probability)."""
    return [
        TokenLogprobs(text, math.log(own), tuple((t, math.log(p)) for t, p in top))
        for text, own, top in pieces
    ]


def test_p_yes_sums_the_variants_of_each_word_at_the_answer_token():
    tokens = _tokens(
        ("Answer", 0.99, [("Answer", 0.99)]),
        (":", 0.99, [(":", 0.99)]),
        (" yes", 0.4, [(" yes", 0.4), ("Yes", 0.2), (" no", 0.2), ("NO", 0.1), (" maybe", 0.1)]),
    )
    assert p_yes_from(tokens) == pytest.approx(0.6 / 0.9)


def test_p_yes_skips_the_reasoning_and_counts_a_chosen_token_left_out_of_the_top():
    tokens = _tokens(
        ("<think>", 0.9, [("<think>", 0.9)]),
        (" no", 0.9, [(" no", 0.9), (" yes", 0.05)]),  # a decoy inside the reasoning
        ("</think>", 0.9, [("</think>", 0.9)]),
        ("**", 0.9, [("**", 0.9)]),
        ("No", 0.5, [("No.", 0.2), (" yes", 0.1)]),  # "No" itself is not among the alternatives
    )
    assert p_yes_from(tokens) == pytest.approx(0.1 / 0.8)


def test_p_yes_is_absent_without_an_answer_token_or_without_either_word():
    assert p_yes_from(_tokens(("Maybe", 0.9, [("Maybe", 0.9)]))) is None
    assert (
        p_yes_from(_tokens(("<think>", 0.9, []), (" yes", 0.9, [(" yes", 0.9)]))) is None
    )  # still reasoning
    assert p_yes_from([]) is None


def test_a_p_yes_agrees_with_an_answer_on_its_side_of_one_half():
    assert agrees(True, 0.51) and agrees(True, 0.5) and not agrees(True, 0.49)
    assert agrees(False, 0.49) and agrees(False, 0.5) and not agrees(False, 0.51)


class Replies:
    """A backend that replies from a list, with the logprobs given (the runner's side of `ask`)."""

    def __init__(self, *replies):
        self.replies, self.asked = list(replies), []

    def complete(self, messages):
        self.asked.append(messages)
        text, tokens = self.replies.pop(0)
        return Completion(text=text, tokens=tokens, tokens_in=10, tokens_out=1, retries=0)

    def describe(self):
        return {}


def test_a_p_yes_that_contradicts_the_answer_is_not_sent_but_logged():
    says_no = tuple(_tokens((" no", 0.9, [(" no", 0.2), (" yes", 0.7)])))  # the text no, the logprobs yes
    asked = ask(Replies(("No.", says_no)), MESSAGES, load_prompts())
    assert (asked.answer, asked.parsed, asked.p_yes) == (False, True, None)
    assert asked.p_yes_disagreeing == pytest.approx(0.7 / 0.9)


def test_an_unclear_reply_is_asked_again_strictly_once_then_answered_no():
    backend = Replies(("Hmm.", None), ("Still thinking", None))
    asked = ask(backend, MESSAGES, load_prompts())
    assert (asked.answer, asked.parsed, asked.p_yes, asked.replies) == (
        False,
        False,
        None,
        ("Hmm.", "Still thinking"),
    )
    assert asked.tokens_in == 20 and len(backend.asked) == 2
    assert backend.asked[1][-2:] == [
        {"role": "assistant", "content": "Hmm."},
        {
            "role": "user",
            "content": "That reply does not say yes or no. Answer with exactly one word: yes or no.",
        },
    ]


# --- retries ------------------------------------------------------------------------------------------


def test_the_backoff_doubles_up_to_its_cap_with_jitter_and_honours_retry_after():
    policy = RetryPolicy(max_retries=9, backoff=1.0, max_backoff=5.0)
    for retry, full in enumerate([1, 2, 4, 5, 5]):
        delays = [policy.delay(retry) for _ in range(200)]
        assert all(full / 2 <= d <= full for d in delays)
        assert max(delays) - min(delays) > full / 10  # jittered, not fixed
    assert policy.delay(0, retry_after=7.0) == 7.0


def test_transient_failures_are_retried_and_counted_then_said_in_one_sentence():
    slept: list[float] = []
    calls = iter([TimeoutError(), TimeoutError(), "answer"])

    def call():
        outcome = next(calls)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def transient(error):
        return Failure("the server did not answer") if isinstance(error, TimeoutError) else None

    policy = RetryPolicy(max_retries=2, backoff=0.01)
    assert with_retries(call, policy, transient, sleep=slept.append) == ("answer", 2)
    assert len(slept) == 2 and slept[0] <= 0.01 < slept[1] * 2  # the second wait is the longer
    with pytest.raises(ModelError, match="the server did not answer"):
        with_retries(lambda: (_ for _ in ()).throw(TimeoutError()), policy, transient, sleep=slept.append)
    with pytest.raises(KeyError):  # anything else is not retried
        with_retries(lambda: {}["x"], policy, transient, sleep=slept.append)


# --- the openai backend against a chat-completions server ------------------------------------------


def _backend(server, **overrides) -> OpenAIChat:
    settings = {
        "base_url": server.url,
        "model": "test-vlm",
        "api_key": "sk-test",
        "timeout": 0.5,
        "policy": RetryPolicy(max_retries=3, backoff=0.001),
    } | overrides
    return OpenAIChat(**settings)


def test_the_backend_retries_429_500_and_a_timeout_and_reads_the_reply_and_usage(chat_servers):
    server = chat_servers(faults={1: "429", 2: "500", 3: "slow"}, slow_seconds=0.8)
    completion = _backend(server).complete(MESSAGES)
    assert completion.retries == 3 and server.ordinal == 4
    assert parse_reply(completion.text) is not None and completion.tokens
    assert completion.tokens_out == len(completion.tokens) and completion.tokens_in > 0


def test_a_server_that_never_answers_in_time_is_given_up_in_one_sentence(chat_servers):
    server = chat_servers(hang=True, slow_seconds=0.6)
    with pytest.raises(ModelError) as failed:
        _backend(server, timeout=0.2, policy=RetryPolicy(max_retries=1, backoff=0.001)).complete(MESSAGES)
    assert str(failed.value) == f"The model server at {server.url} did not answer within 0.2 s (2 tries)."
    assert failed.value.exit_code == 1


def test_a_wrong_model_name_says_which_models_the_server_has(chat_servers):
    server = chat_servers()
    with pytest.raises(ModelSetupError) as failed:
        _backend(server, model="gpt-nope").complete(MESSAGES)
    assert (
        str(failed.value)
        == f"The model server at {server.url} has no model 'gpt-nope' (it serves: test-vlm)."
    )
    assert failed.value.exit_code == 2 and server.ordinal == 0  # a 404 is not retried


def test_a_base_url_that_is_not_the_api_and_a_refused_request_are_said_as_such(chat_servers):
    server = chat_servers()
    api = server.url.removesuffix("/v1")  # the /v1 forgotten: the server's own 404, and no list of models
    with pytest.raises(ModelSetupError) as failed:
        _backend(server, base_url=api).complete(MESSAGES)
    assert str(failed.value) == (
        f"The model server at {api} answered 404 for the model 'test-vlm': check --model, and --base-url "
        "(an OpenAI-compatible API's address usually ends in /v1)."
    )
    server.faults = {1: "400"}
    with pytest.raises(ModelSetupError) as failed:
        _backend(server).complete(MESSAGES)
    assert str(failed.value) == (
        f"The model server at {server.url} refused the request (400: This model does not take images.)."
    )
    assert server.ordinal == 1  # a 400 is not retried


def test_a_refused_key_and_a_missing_key_are_set_ups_to_fix(chat_servers):
    server = chat_servers()
    with pytest.raises(ModelSetupError, match=r"refused the API key \(401\)"):
        _backend(server, api_key="sk-wrong").complete(MESSAGES)
    args = Namespace(api_key_env="VTT_TEST_NO_SUCH_KEY", base_url=server.url, model="test-vlm")
    with pytest.raises(ModelSetupError, match=r"^Set VTT_TEST_NO_SUCH_KEY to the model server's API key"):
        OpenAIChat.from_arguments(args, {})


def test_a_server_without_logprobs_is_asked_without_them_from_then_on(chat_servers):
    server = chat_servers(refuse_logprobs=True)
    backend = _backend(server)
    first, second = backend.complete(MESSAGES), backend.complete(MESSAGES)
    assert first.tokens is None and second.tokens is None and parse_reply(first.text) is not None
    assert [bool(r.get("logprobs")) for r in server.requests] == [True, False, False]
    assert first.retries == 0 and backend.describe()["logprobs"] is False


# --- templates, drawing, the chat ----------------------------------------------------------------------


def test_templates_can_be_replaced_one_by_one_and_a_wrong_variable_stops_the_run(tmp_path):
    (tmp_path / "question.txt").write_text("Q: $text\n\n\n$region\nSay yes or no.")
    (tmp_path / "phrases.txt").write_text("revealed = It was $truth.\n")
    prompts = load_prompts(tmp_path)
    assert (
        prompts.turn("question", revealed="", labels="", text="Is it?", region="")
        == "Q: Is it?\n\nSay yes or no."
    )
    assert prompts.phrase("revealed", truth="yes") == "It was yes."
    assert prompts.phrase("revealed_label", truth="yes", label="person 1", type="person").startswith(
        "The correct answer was yes"  # the default, for a phrase the folder does not replace
    )
    (tmp_path / "strict.txt").write_text("Answer $answer.")
    with pytest.raises(
        PromptError, match=r"strict.txt uses \$answer, which it is not given \(it is given: none\)"
    ):
        load_prompts(tmp_path)
    with pytest.raises(PromptError, match="There is no folder"):
        load_prompts(tmp_path / "missing")


IMAGE = {"id": 1, "width": 64, "height": 48, "url": ""}
UNIQUE = {
    "kind": "unique",
    "type": "person",
    "attributes": [],
    "region": {"id": "a", "box": [36, 24, 24, 20]},
}


def _png(colour=(10, 120, 30)) -> bytes:
    buffer = io.BytesIO()
    PILImage.new("RGB", (64, 48), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def _current(step=2, kind="exist", box=(4.4, 4, 24, 20)):
    question = {"kind": kind, "type": "person", "attributes": [], "region": {"id": "r", "box": list(box)}}
    return question_from(
        {
            "stream": 0,
            "streams": 1,
            "step": step,
            "image": IMAGE,
            "question": question,
            "text": "Is there a person other than person 1 in the designated region?",
            "labels": [{"label": "person 1", "step": 1, "question": UNIQUE, "text": "?"}],
        }
    )


def test_the_region_is_outlined_in_red_and_each_label_dashed_where_it_was_found():
    picture = PILImage.open(io.BytesIO(drawn_image(_png(), _current(), draw=True, image_format="png")))
    picture = picture.convert("RGB")
    pixels = picture.load()
    # The designated region (4.4, 4) to (28.4, 24), rounded: its edges red, two pixels thick, inside.
    assert (
        pixels[16, 4] == pixels[16, 5] == pixels[4, 14] == pixels[27, 14] == pixels[16, 23] == REGION_COLOUR
    )
    assert pixels[16, 6] == pixels[3, 14] == pixels[28, 14] == (10, 120, 30)
    top = [pixels[x, 24] for x in range(36, 60)]
    assert LABEL_COLOURS[0] in top and (10, 120, 30) in top  # dashed: marked and unmarked
    assert pixels[10, 40] == (10, 120, 30)
    plain = drawn_image(_png(), _current(), draw=False, image_format="png")
    assert PILImage.open(io.BytesIO(plain)).convert("RGB").tobytes() == (
        PILImage.open(io.BytesIO(_png())).convert("RGB").tobytes()
    )


def test_the_default_jpeg_keeps_the_lines_within_a_few_levels_of_their_colour():
    """JPEG by default (benchmarks.runner_cost: a tenth of PNG's time to encode), without chroma
    subsampling, so a two-pixel red line is still red where it was drawn, and the rest is as it was."""
    encoded = drawn_image(_png(), _current(), draw=True)
    assert encoded[:3] == b"\xff\xd8\xff"  # a JPEG
    pixels = PILImage.open(io.BytesIO(encoded)).convert("RGB").load()

    def near(pixel, colour, levels=40):
        return all(abs(a - b) <= levels for a, b in zip(pixel, colour, strict=True))

    assert all(near(pixels[x, y], REGION_COLOUR) for x, y in ((16, 4), (4, 14), (27, 14), (16, 23)))
    assert near(pixels[10, 40], (10, 120, 30)) and not near(pixels[10, 40], REGION_COLOUR)


HISTORY = [
    {
        "step": 0,
        "question": UNIQUE | {"kind": "exist"},
        "text": "Q0?",
        "answer": "no",
        "p_yes": 0.3,
        "truth": "yes",
    },
    {
        "step": 1,
        "question": UNIQUE,
        "text": "Q1?",
        "answer": "yes",
        "p_yes": None,
        "truth": "yes",
        "label": "person 1",
    },
]


def test_a_chat_is_the_stream_so_far_with_the_truths_and_the_image_on_the_current_turn_only():
    history = [history_entry_from(entry) for entry in HISTORY]
    messages = conversation.chat(
        _current(),
        history,
        prompts=load_prompts(),
        showing=Showing.of("both", blind=False),
        image_url="data:x",
    )
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert "outlined in red" in messages[0]["content"]
    assert messages[1]["content"].startswith(
        "Q0?\nThe designated region is the box from (36, 24) to (60, 44)"
    )
    assert [messages[2]["content"], messages[4]["content"]] == ["No.", "Yes."]  # as answered, not the truth
    assert messages[3]["content"].startswith("The correct answer was yes.\n\nQ1?")
    image, text = messages[5]["content"]
    assert image == {"type": "image_url", "image_url": {"url": "data:x"}}
    assert text["text"].startswith(
        "The correct answer was yes: that person is now called person 1.\n\nperson 1 is"
    )
    assert "box from (4, 4) to (28, 24) in the 64\u00d748 image" in text["text"]
    assert text["text"].endswith("Answer yes or no.")
    blind = conversation.chat(
        _current(),
        history,
        prompts=load_prompts(),
        showing=Showing.of("both", blind=True),
        image_url="data:x",
    )
    assert "not shown" in blind[0]["content"] and isinstance(blind[-1]["content"], str)
    assert "box from (4, 4) to (28, 24)" in blind[-1]["content"] and "outlined" not in blind[-1]["content"]
    drawn_only = conversation.chat(
        _current(), history, prompts=load_prompts(), showing=Showing.of("drawn", blind=True), image_url=None
    )
    assert "from (" not in "".join(str(m["content"]) for m in drawn_only[1:])  # the text and history only


# --- the command's own checks -------------------------------------------------------------------------


def test_a_run_is_refused_on_a_system_registered_as_shown_otherwise_and_warned_when_it_is_not_said(capsys):
    with pytest.raises(cli.RunnerError, match="registered as shown the image: a blind run"):
        cli._check_shown({"name": "seeing", "shown": "image"}, blind=True)
    with pytest.raises(cli.RunnerError, match="registered as shown text only: run it with --blind"):
        cli._check_shown({"name": "blind", "shown": "text"}, blind=False)
    cli._check_shown({"name": "blind", "shown": "text"}, blind=True)
    assert capsys.readouterr().err == ""
    cli._check_shown({"name": "old"}, blind=False)
    assert capsys.readouterr().err == (
        "vtt: warning: the platform does not say whether 'old' is shown the image or text only; taking the "
        "test as a seeing run.\n"
    )


def test_the_progress_is_a_line_a_stream_when_stderr_is_not_a_terminal():
    out = io.StringIO()
    progress = Progress(out)
    question = SimpleNamespace(stream=0, streams=2)
    progress.answered_one(question, correct=True, parsed=True, stream_ended=False)
    assert out.getvalue() == ""
    progress.answered_one(question, correct=False, parsed=False, stream_ended=True)
    assert out.getvalue() == (
        "[############------------] stream 1 of 2, 2 answered this run, 50% right, 1 not understood\n"
    )
