"""Command line: write synthetic street scenes as JSON Lines, and optionally one PNG per scene.

Usage: python -m demo.synthetic --count N --seed S --out scenes.jsonl [--images DIR]
[--width W --height H] [--prefix NAME]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from demo.synthetic.scenes import generate_scenes

if TYPE_CHECKING:
    from PIL import Image

MIN_SIDE = 64  # the street model needs room for a horizon, a street and two sidewalks
MAX_SIDE = 8192


class _OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are a single line on stderr (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _bounded_int(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high], with a short message otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bounds = f"between {low} and {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{value} is not {bounds}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="python -m demo.synthetic",
        description="Generate synthetic urban street scene graphs (and images).",
    )
    parser.add_argument("--count", type=_bounded_int(0), required=True, help="number of scenes")
    parser.add_argument(
        "--seed", type=_bounded_int(0), required=True, help="random seed (same seed, same scenes)"
    )
    parser.add_argument("--out", type=Path, required=True, help="JSON Lines file to write")
    parser.add_argument("--images", type=Path, help="directory for one PNG per scene (created if missing)")
    parser.add_argument("--width", type=_bounded_int(MIN_SIDE, MAX_SIDE), default=640, help="image width")
    parser.add_argument("--height", type=_bounded_int(MIN_SIDE, MAX_SIDE), default=480, help="image height")
    parser.add_argument("--prefix", default="synthetic", help="image name prefix")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if "/" in args.prefix or "\\" in args.prefix or not args.prefix:
        parser.error("--prefix must be a non-empty name without path separators")
    render_scene: Callable[[dict, int], Image.Image] | None = None  # (scene, seed) -> its drawing
    if args.images is not None:
        from demo.synthetic.render import render_scene  # Pillow only when images are asked for

        try:
            args.images.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            parser.exit(1, f"{parser.prog}: error: cannot create {args.images}: {exc.strerror}\n")
    try:
        with args.out.open("w", encoding="utf-8") as out:
            for scene in generate_scenes(
                args.count, args.seed, prefix=args.prefix, width=args.width, height=args.height
            ):
                out.write(json.dumps(scene, sort_keys=True) + "\n")
                if render_scene is not None:
                    render_scene(scene, args.seed).save(args.images / scene["image"])
    except OSError as exc:
        parser.exit(1, f"{parser.prog}: error: {exc.filename or args.out}: {exc.strerror}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
