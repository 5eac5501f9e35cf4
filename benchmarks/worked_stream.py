"""Write the worked stream of docs/engine.md: the engine on the demo data, one test image, step by step.

    python -m benchmarks.worked_stream [--image 0] [--seed 7]

The demo collection (`manage.py demo_setup`) is made from `demo.synthetic` with fixed seeds; this
script regenerates exactly its reviewed training scenes and its test scenes, fits the engine on the
training ones and runs the automatic driver on one test scene.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
django.setup()

from demo import services as demo  # noqa: E402  (the demo's sizes and seeds)
from demo.synthetic import generate_scenes  # noqa: E402
from engine.core.drivers import run_automatic, stream_seed  # noqa: E402
from engine.core.settings import EngineSettings  # noqa: E402
from engine.core.statistics import fit  # noqa: E402
from kernel.kinds import render_text  # noqa: E402
from kernel.questions import InstantiationQuestion  # noqa: E402
from kernel.scene import parse_scene  # noqa: E402
from kernel.vocabulary import load_vocabulary  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "engine.md"


def demo_scenes(vocabulary):
    rendered = list(generate_scenes(demo.TRAIN + demo.TEST, demo.SEED, prefix="demo"))
    graphs = generate_scenes(demo.GRAPHS_ONLY, demo.SEED + 1, prefix="demo-graph")
    train = [parse_scene(s, vocabulary) for s in rendered[: demo.TRAIN]] + [
        parse_scene(s, vocabulary) for s in graphs
    ]
    test = [parse_scene(s, vocabulary) for s in rendered[demo.TRAIN :]]
    return train, test


def render(scene, steps, vocabulary, command: str) -> str:
    objects = ", ".join(f"{sum(o.type == t.name for o in scene.objects)} {t.name}s" for t in vocabulary.types)
    rows = []
    for step in steps:
        question = step.question
        region = f"`{question.region}`" if isinstance(question, InstantiationQuestion) else ""
        label = f" → **{step.label}**" if step.label else ""
        rows.append(
            f"| {step.index} | {render_text(question, vocabulary, step.made)} | {region} | {step.estimate.p:.3f} | "
            f"{step.estimate.population:,} | {step.answer}{label} |"
        )
    answered = sum(1 for s in steps if s.answer != "ambiguous")
    table = "\n".join(rows)
    return f"""Command: `{command}`. Trained on the demo's 2,591 reviewed training scenes; the test
image is `{scene.image}` ({scene.width}x{scene.height}, {objects}); the oracle answers from its annotation.
{len(steps)} proposals, {answered} answered. The population is the number of training images (instantiation
questions), objects (attribute questions) or pairs (relationship questions) of the estimate's coarsest level (the pooled one; docs/engine.md, "The chain").

| # | question | region | p | population | answer |
|---|---|---|---|---|---|
{table}

Read it as the paper's Fig. 2: existence questions narrow down where something is, a uniqueness question
instantiates it ("person 1"), its attributes are explored while one is unpredictable, then its
relationships with the objects named before it, then the search for the next object starts again.
"""


def write(body: str) -> None:
    start, end = "<!-- worked-stream:start -->", "<!-- worked-stream:end -->"
    text = DOC.read_text()
    before, rest = text.split(start, 1)
    _, after = rest.split(end, 1)
    DOC.write_text(f"{before}{start}\n{body.rstrip()}\n{end}{after}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--image", type=int, default=0, help="position of the test scene in the demo's test set"
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    vocabulary = load_vocabulary(ROOT / "annotations" / "vocabularies" / "urban-street.json")
    train, test = demo_scenes(vocabulary)
    stats = fit(vocabulary, train)
    scene = test[args.image]
    steps = run_automatic(stats, scene, EngineSettings(), stream_seed(args.seed, args.image))
    command = "python -m benchmarks.worked_stream " + " ".join(sys.argv[1:])
    write(render(scene, steps, vocabulary, command.strip()))
    print(f"{len(steps)} steps written to {DOC}")


if __name__ == "__main__":
    main()
