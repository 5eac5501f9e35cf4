"""The image as the model is shown it: the question's designated region and every named object's region
drawn on it, as the operator sees them when truthing (the designated region outlined, each label's region
dashed in a colour of its own, with its name).

The image is sent as JPEG by default (`--image-format jpeg`): at quality 92 without chroma subsampling a
drawn line keeps its colour to within a few levels, and encoding a 640x480 photograph takes about 2 ms
against PNG's 33 ms and a third of its bytes (benchmarks.runner_cost; the runner's cost per question was
45 ms with PNG). `--image-format png` keeps every pixel exactly, which the runner's tests use to find
the lines pixel by pixel. Lines are drawn inside their box, as thick as the image is large (a pixel for
every 250 of its longer side, at least 2), so a box that touches the image's edge is still seen whole.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

from vtt_client.types import ExistQuestion, Label, Question

if TYPE_CHECKING:  # Pillow is imported where an image is drawn (drawn_image): it comes with the `openai`
    # extra, and `vtt --help` and the client itself work without it (issue 46).
    from PIL import ImageDraw

REGION_COLOUR = (255, 0, 0)  # the designated region: "outlined in red", as the system prompt says
# The labels' colours, in the order the labels were made: none of them red, each far from the others.
LABEL_COLOURS: tuple[tuple[int, int, int], ...] = (
    (0, 90, 255),
    (255, 170, 0),
    (0, 180, 90),
    (190, 0, 255),
    (0, 200, 220),
    (255, 0, 170),
)
TAG_TEXT = (255, 255, 255)
IMAGE_FORMATS = ("jpeg", "png")
JPEG_QUALITY = 92

Box = tuple[float, float, float, float]  # x, y, width, height in pixels, as the API gives it
Corners = tuple[int, int, int, int]  # x0, y0, x1, y1: whole pixels, x1 and y1 one past the last


def corners(box: Box) -> Corners:
    """A box's corners rounded to whole pixels: what is drawn, and what the prompt says in words."""
    x, y, width, height = box
    return round(x), round(y), round(x + width), round(y + height)


def line_width(size: tuple[int, int]) -> int:
    return max(2, round(max(size) / 250))


def drawn_image(image_bytes: bytes, question: Question, *, draw: bool, image_format: str = "jpeg") -> bytes:
    """The image in `image_format` ("jpeg" or "png"), with the question's regions drawn on it when
    `draw` (else as it is)."""
    from PIL import Image as PILImage
    from PIL import ImageDraw

    with PILImage.open(io.BytesIO(image_bytes)) as opened:
        image = opened.convert("RGB")
    if draw:
        canvas = ImageDraw.Draw(image)
        width = line_width(image.size)
        for index, label in enumerate(question.labels):
            _draw_label(canvas, image.size, label, LABEL_COLOURS[index % len(LABEL_COLOURS)], width)
        if isinstance(question, ExistQuestion):
            # Last, on top: where a label's region is the designated one, the question's region shows.
            canvas.rectangle(
                _inside(corners(question.region.box), image.size), outline=REGION_COLOUR, width=width
            )
    buffer = io.BytesIO()
    if image_format == "png":
        image.save(buffer, format="PNG")
    else:  # no chroma subsampling: a thin coloured line keeps its colour
        image.save(buffer, format="JPEG", quality=JPEG_QUALITY, subsampling=0)
    return buffer.getvalue()


def data_url(encoded: bytes, image_format: str = "jpeg") -> str:
    """The image as the chat-completions API takes it inline."""
    return f"data:image/{image_format};base64," + base64.b64encode(encoded).decode("ascii")


def _inside(box: Corners, size: tuple[int, int]) -> Corners:
    """Pillow's rectangle (last pixel included), kept inside the image."""
    x0, y0, x1, y1 = box
    return (
        min(max(x0, 0), size[0] - 1),
        min(max(y0, 0), size[1] - 1),
        min(max(x1 - 1, 0), size[0] - 1),
        min(max(y1 - 1, 0), size[1] - 1),
    )


def _draw_label(
    canvas: ImageDraw.ImageDraw, size: tuple[int, int], label: Label, colour: tuple[int, int, int], width: int
) -> None:
    box = _inside(corners(label.question.region.box), size)
    from PIL import ImageFont

    for dash in _dashes(box, width):
        canvas.rectangle(dash, fill=colour)
    font = ImageFont.load_default(size=max(10, round(max(size) / 60)))
    left, top = box[0] + width, box[1] + width
    text_box = canvas.textbbox((left, top), label.label, font=font)
    canvas.rectangle((text_box[0] - 1, text_box[1] - 1, text_box[2] + 1, text_box[3] + 1), fill=colour)
    canvas.text((left, top), label.label, fill=TAG_TEXT, font=font)


def _dashes(box: Corners, width: int) -> Sequence[Corners]:
    """The dashes of a dashed outline `width` thick inside `box` (Pillow draws no dashed line): dashes
    three widths long, two widths apart, along each edge."""
    x0, y0, x1, y1 = box
    dash, step = 3 * width, 5 * width
    dashes: list[Corners] = []
    for start in range(x0, x1 + 1, step):
        end = min(start + dash - 1, x1)
        dashes += [(start, y0, end, y0 + width - 1), (start, y1 - width + 1, end, y1)]
    for start in range(y0, y1 + 1, step):
        end = min(start + dash - 1, y1)
        dashes += [(x0, start, x0 + width - 1, end), (x1 - width + 1, start, x1, end)]
    return dashes
