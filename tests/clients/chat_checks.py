"""The chat server's checks of a request (chat_server.py): what the runner must send for each question.

Given what the test knows of a question (`Expected`), a request is wrong when the image is not a PNG or
JPEG data URL on the current question's turn only; when its pixels do not show the designated region
outlined in red at the right place and each named object's region dashed where it was found, or show a
drawing anywhere else (the test's images are one colour); when the stream's earlier steps are missing,
out of order, answered otherwise than the server answered them, or their truths untold; when the regions
are not in the words of a run that gives words, or are in the words of one that does not; when a blind
run carries an image at all; or when temperature, seed and logprobs are not asked as the runner does.
"""

from __future__ import annotations

import base64
import io
import re
from dataclasses import dataclass
from typing import Any

from PIL import Image as PILImage

RED = (255, 0, 0)
QUESTION = re.compile(r"QTEXT-s\d+-i\d+-\w+")
Corners = tuple[int, int, int, int]  # x0, y0, x1, y1 in whole pixels, x1 and y1 one past the last


@dataclass(frozen=True)
class Expected:
    """What the test knows of one question."""

    stream: int
    step: int
    text: str
    truth: str  # "yes" or "no"
    region: Corners | None  # the designated region (an instantiation question)
    labels: dict[str, Corners]  # the named objects before this step, where each was found
    colour: tuple[int, int, int]  # the image's one colour
    size: tuple[int, int]
    made: str | None = None  # the label a yes to this question made


def request_problems(
    server: Any,
    body: dict[str, Any],
    messages: list[dict[str, Any]],
    turn: dict[str, Any],
    expected: Expected,
    retry: bool,
) -> list[str]:
    """What is wrong with a request for the question `expected` (`turn` is its turn; `retry`: the
    strict retry, after an unclear reply), as the `server` that received it was set up."""
    problems = []
    if body.get("temperature") != 0 or body.get("seed") != 0:
        problems.append(f"temperature {body.get('temperature')} and seed {body.get('seed')}, not 0 and 0")
    if not server.refuse_logprobs and (body.get("logprobs") is not True or body.get("top_logprobs") != 5):
        problems.append("logprobs not asked for")
    if messages[0]["role"] != "system":
        problems.append("no system prompt first")
    if retry and "exactly one word" not in text_of(messages[-1]):
        problems.append("the retry does not ask for exactly one word")
    problems += _history_problems(server, messages[: messages.index(turn) + 1], expected)
    problems += _image_problems(server, messages, turn, expected)
    if server.words:
        problems += _word_problems(text_of(turn), expected)
    elif " from (" in text_of(turn):
        problems.append("a region in words in a run that gives none")
    return problems


def _history_problems(server: Any, messages: list[dict[str, Any]], expected: Expected) -> list[str]:
    """The stream's earlier steps, in order, each answered as answered here, each truth told."""
    before = sorted(
        (e for e in server.expected.values() if e.stream == expected.stream and e.step < expected.step),
        key=lambda e: e.step,
    )
    users = [m for m in messages[1:] if m["role"] == "user"]
    assistants = [m for m in messages[1:] if m["role"] == "assistant"]
    asked = [(questions_in(m) or [""])[0] for m in users]
    if asked != [e.text for e in before] + [expected.text]:
        return [f"the chat asks {asked}, not the stream's steps up to this one"]
    problems = []
    for earlier, said, told in zip(before, assistants, users[1:], strict=True):
        answered = server.answered.get(earlier.text)
        if said["content"] != {"yes": "Yes.", "no": "No."}.get(answered or "", "(not answered here)"):
            problems.append(f"{earlier.text} answered {said['content']!r} in the chat, here {answered}")
        if f"The correct answer was {earlier.truth}" not in text_of(told):
            problems.append(f"{earlier.text}'s truth ({earlier.truth}) not told in the next turn")
        if earlier.made and f"now called {earlier.made}" not in text_of(told):
            problems.append(f"{earlier.made} not named after {earlier.text}")
    return problems


def _image_problems(
    server: Any, messages: list[dict[str, Any]], turn: dict[str, Any], expected: Expected
) -> list[str]:
    images = [(m, part) for m in messages for part in parts(m) if part.get("type") == "image_url"]
    if server.blind:
        return ["a blind run was shown an image"] if images else []
    if len(images) != 1 or images[0][0] is not turn:
        return [f"{len(images)} images, not one on the current question's turn"]
    url = images[0][1]["image_url"]["url"]
    if not re.match(r"data:image/(png|jpeg);base64,", url):
        return ["the image is not a PNG or JPEG data URL"]
    image = _decoded(url)
    if image.size != expected.size:
        return [f"the image is {image.size}, not {expected.size}"]
    return _pixel_problems(image, expected, drawn=server.drawn)


def _pixel_problems(image: PILImage.Image, expected: Expected, *, drawn: bool) -> list[str]:
    """The designated region's edges red, each label's edges dashed, nothing changed anywhere else."""
    pixels = image.load()
    width, height = image.size
    problems = []
    allowed: list[Corners] = []  # where drawing may be: the edges' bands and the name tags
    if drawn and expected.region is not None:
        x0, y0, x1, y1 = expected.region
        midpoints = [
            ((x0 + x1) // 2, y0),
            ((x0 + x1) // 2, y1 - 1),
            (x0, (y0 + y1) // 2),
            (x1 - 1, (y0 + y1) // 2),
        ]
        if any(pixels[x, y] != RED for x, y in midpoints):
            problems.append(f"the designated region {expected.region} is not outlined in red at its edges")
        allowed += _bands(expected.region)
    for label, box in expected.labels.items() if drawn else ():
        x0, y0, x1, y1 = box
        top = [pixels[x, y0] for x in range(x0, x1)]
        marked = sum(1 for p in top if p not in (expected.colour,))
        if marked < 0.3 * len(top) or marked == len(top):
            problems.append(
                f"{label}'s region {box} is not dashed at its top edge ({marked} of {len(top)} marked)"
            )
        allowed += [*_bands(box), (x0, y0, min(x0 + 64, width), y0 + 16)]
    stray = [
        (x, y)
        for y in range(height)
        for x in range(width)
        if pixels[x, y] != expected.colour and not any(a[0] <= x < a[2] and a[1] <= y < a[3] for a in allowed)
    ]
    if stray:
        problems.append(f"{len(stray)} pixels drawn where nothing should be, e.g. at {stray[0]}")
    return problems


def _bands(box: Corners, width: int = 3) -> list[Corners]:
    x0, y0, x1, y1 = box
    return [
        (x0, y0, x1, y0 + width),
        (x0, y1 - width, x1, y1),
        (x0, y0, x0 + width, y1),
        (x1 - width, y0, x1, y1),
    ]


def _word_problems(text: str, expected: Expected) -> list[str]:
    problems = []
    if expected.region is not None and _box_words(expected.region) not in text:
        problems.append(f"the designated region is not in words ({_box_words(expected.region)})")
    for label, box in expected.labels.items():
        if f"{label} is the" not in text or _box_words(box) not in text:
            problems.append(f"{label}'s region is not in words")
    return problems


def _box_words(box: Corners) -> str:
    return f"from ({box[0]}, {box[1]}) to ({box[2]}, {box[3]})"


# --- reading a request ------------------------------------------------------------------------------


def parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return content if isinstance(content, list) else [{"type": "text", "text": content or ""}]


def text_of(message: dict[str, Any]) -> str:
    return "\n".join(part.get("text", "") for part in parts(message) if part.get("type") == "text")


def questions_in(message: dict[str, Any]) -> list[str]:
    return QUESTION.findall(text_of(message)) if message.get("role") == "user" else []


def question_turn_text(body: dict[str, Any]) -> str:
    turns = [m for m in body["messages"] if questions_in(m)]
    return text_of(turns[-1]) if turns else ""


def image_of(body: dict[str, Any]) -> PILImage.Image | None:
    for message in body["messages"]:
        for part in parts(message):
            if part.get("type") == "image_url":
                return _decoded(part["image_url"]["url"])
    return None


def _decoded(url: str) -> PILImage.Image:
    return PILImage.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")


def red_corners(image: PILImage.Image | None) -> Corners | None:
    """Where red was drawn: the designated region, as this server sees it."""
    if image is None:
        return None
    pixels = image.load()
    red = [(x, y) for y in range(image.height) for x in range(image.width) if pixels[x, y] == RED]
    if not red:
        return None
    xs, ys = [x for x, _ in red], [y for _, y in red]
    return min(xs), min(ys), max(xs) + 1, max(ys) + 1


def corners_in_words(text: str) -> Corners | None:
    match = re.search(r"designated region[^.]*? from \((\d+), (\d+)\) to \((\d+), (\d+)\)", text)
    return tuple(int(v) for v in match.groups()) if match else None  # type: ignore[return-value]
