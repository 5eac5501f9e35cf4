"""The model runner's own cost per question (issue 36, point 8): drawing the regions on a 640x480 image,
encoding it as a PNG data URL, building the chat, and the HTTP round trip through the openai SDK to a
local chat-completions server that answers at once, so that what is measured is the runner, not a model.

    .venv/bin/python -m benchmarks.runner_cost [--questions 300] [--labels 3] [--history 10] \
        [--image-format jpeg|png] [--write]

The question is an existence question with a designated region, after a stream that labelled `--labels`
objects and asked `--history` questions (its earlier turns are in the chat). The platform's own requests
(the question, the answer) are not part of the figure: benchmarks.answer_throughput measures those.
Target: median at most 15 ms. `--write` puts the result in its section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
from PIL import Image
from vtt_client.runner.conversation import Showing, chat
from vtt_client.runner.drawing import data_url, drawn_image
from vtt_client.runner.openai_chat import OpenAIChat
from vtt_client.runner.prompts import load_prompts
from vtt_client.runner.take import ask
from vtt_client.types import history_entry_from, question_from

from benchmarks.report import commit, machine, write_section
from kernel.kinds import attribute_kinds, instantiation_kinds

WIDTH, HEIGHT = 640, 480
# The kinds of the stream, by what they do (no module but a kind's own names a kind).
EXISTENCE = next(k.name for k in instantiation_kinds() if not k.labels)
UNIQUENESS = next(k.name for k in instantiation_kinds() if k.labels)
ONE_ATTRIBUTE = next(k.name for k in attribute_kinds() if k.arity == 1)
REPLY = {
    "id": "bench",
    "object": "chat.completion",
    "created": 0,
    "model": "bench",
    "choices": [
        {
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": "Yes."},
            "logprobs": {
                "content": [
                    {
                        "token": "Yes",
                        "logprob": -0.2,
                        "bytes": None,
                        "top_logprobs": [
                            {"token": "Yes", "logprob": -0.2, "bytes": None},
                            {"token": "No", "logprob": -1.7, "bytes": None},
                        ],
                    }
                ]
            },
        }
    ],
    "usage": {"prompt_tokens": 900, "completion_tokens": 2, "total_tokens": 902},
}


class Instant(BaseHTTPRequestHandler):
    """A chat-completions endpoint that reads the request and answers "Yes." with logprobs at once."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps(REPLY).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def photo_like_png() -> bytes:
    """A 640x480 PNG with a photograph's entropy (smooth gradients and noise), so that encoding costs
    what a real image costs (a flat colour would compress to nothing)."""
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    base = np.stack([x * 255 / WIDTH, y * 255 / HEIGHT, (x + y) * 127 / (WIDTH + HEIGHT)], axis=-1)
    pixels = np.clip(base + rng.normal(0, 18, base.shape), 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def region(x: float, y: float, w: float, h: float) -> dict[str, Any]:
    return {"id": "r", "box": [x, y, w, h]}


def the_question(labels: int, history: int) -> tuple[Any, list[Any]]:
    """An existence question after `history` questions that labelled `labels` persons."""
    made = [f"person {n + 1}" for n in range(labels)]
    data = {
        "stream": 0,
        "streams": 40,
        "step": history,
        "image": {"id": 1, "width": WIDTH, "height": HEIGHT, "url": "/x"},
        "question": {
            "kind": EXISTENCE,
            "type": "person",
            "attributes": [],
            "region": region(320, 160, 160, 160),
            "excluding": made,
        },
        "text": f"Is there a person other than {', '.join(made)} in the designated region?",
        "labels": [
            {
                "label": label,
                "step": n,
                "question": {
                    "kind": UNIQUENESS,
                    "type": "person",
                    "attributes": [],
                    "region": region(80 * n, 0, 160, 240),
                },
                "text": "Is there a unique person in the designated region?",
            }
            for n, label in enumerate(made)
        ],
    }
    entries = [
        history_entry_from(
            {
                "stream": 0,
                "step": i,
                "question": {"kind": ONE_ATTRIBUTE, "label": "person 1", "attributes": ["walking"]},
                "text": "Is person 1 walking?",
                "answer": "yes",
                "p_yes": 0.7,
                "truth": "yes" if i % 2 else "no",
                "label": None,
            }
        )
        for i in range(history)
    ]
    return question_from(data), entries


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--labels", type=int, default=3)
    parser.add_argument("--history", type=int, default=10)
    parser.add_argument("--image-format", choices=["jpeg", "png"], default="jpeg")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Instant)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    model = OpenAIChat(base_url=f"http://127.0.0.1:{server.server_port}/v1", model="bench", api_key="none")
    prompts, showing = load_prompts(), Showing.of("both", blind=False)
    image = photo_like_png()
    question, history = the_question(args.labels, args.history)
    parts: dict[str, list[float]] = {"drawing and encoding": [], "chat": [], "model request": [], "whole": []}
    for n in range(args.questions + 20):
        started = time.perf_counter()
        url = data_url(
            drawn_image(image, question, draw=True, image_format=args.image_format), args.image_format
        )
        drawn = time.perf_counter()
        messages = chat(question, history, prompts=prompts, showing=showing, image_url=url)
        built = time.perf_counter()
        asked = ask(model, messages, prompts)
        done = time.perf_counter()
        assert asked.parsed and asked.p_yes is not None
        if n >= 20:  # the first requests open the connection and warm the caches
            for name, seconds in zip(
                parts, (drawn - started, built - drawn, done - built, done - started), strict=True
            ):
                parts[name].append(seconds * 1000)
    server.shutdown()
    report = render(parts, args, len(url))
    print(report)
    if args.write:
        write_section(f"runner-cost-{args.image_format}", report)


def render(parts: dict[str, list[float]], args, url_bytes: int) -> str:
    rows = "\n".join(
        f"| {name} | {statistics.median(ms):.2f} | {np.percentile(ms, 95):.2f} |"
        for name, ms in parts.items()
    )
    whole = statistics.median(parts["whole"])
    return f"""## The model runner's own cost per question, {args.image_format.upper()} (issue 36, point 8)

Command: `python -m benchmarks.runner_cost --questions {args.questions} --labels {args.labels} --history {args.history} --image-format {args.image_format}`
at commit {commit()}, {machine()}. A 640x480 image with a photograph's entropy, the designated region and
{args.labels} labels drawn, sent as {args.image_format.upper()} ({url_bytes / 1024:.0f} KiB as a data URL), {args.history} earlier turns; a local
chat-completions server that answers at once, through the openai SDK (one keep-alive connection).

| per question | median (ms) | p95 (ms) |
|---|---|---|
{rows}

Median {whole:.2f} ms per question (target at most 15 ms: {"met" if whole <= 15 else "NOT met"}).
"""


if __name__ == "__main__":
    main()
