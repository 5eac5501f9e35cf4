"""Every question says what it means (issue 36): in the streams of each demo world, two steps of one stream
with the same English and the same structured form have the same truth, and an instantiation question
names, in both, the labels of its type the stream made before it (the objects it is not about).

Before questions said so, "Is there a vehicle in the designated region?" came back after "vehicle 1"
was labelled with the same text and form and another truth; the last test shows these streams do ask
such questions again, so that the first test can fail."""

from __future__ import annotations

from collections import defaultdict

import pytest

from demo.marina import scenes as marina
from demo.parking import scenes as parking
from demo.synthetic.scenes import generate_scenes as street_scenes
from engine.core.drivers import run_automatic, stream_seed
from engine.core.settings import EngineSettings
from engine.core.statistics import fit
from kernel.kinds import EXCLUDING, InstantiationKind, kind_of
from kernel.kinds.base import and_list, canonical
from kernel.scene import parse_scene
from kernel.vocabulary import load_vocabulary
from tests.engine.core.random_scenes import default_vocabulary

# Each world: its vocabulary, its scenes, and how many test images (the street's streams ask a question
# again after a label less often: 16 images to see it happen).
WORLDS = {
    "street": (default_vocabulary, street_scenes, 16),
    "parking": (lambda: load_vocabulary(parking.VOCABULARY), parking.generate_scenes, 8),
    "marina": (lambda: load_vocabulary(marina.VOCABULARY), marina.generate_scenes, 8),
}
TRAIN, SEEDS = 500, 3


@pytest.fixture(scope="module", params=sorted(WORLDS))
def streams(request):
    """Each world's streams as `vtt-engine generate` writes them: one line per step."""
    make_vocabulary, generate, test_images = WORLDS[request.param]
    vocabulary = make_vocabulary()
    stats = fit(vocabulary, [parse_scene(s, vocabulary) for s in generate(TRAIN, seed=21)])
    written = []
    for i, raw in enumerate(generate(test_images, seed=22)):
        scene = parse_scene(raw, vocabulary)
        for number in range(SEEDS):
            steps = run_automatic(stats, scene, EngineSettings(), stream_seed(7, i, number))
            written.append([s.to_json(stats, scene.image, scene.width, scene.height) for s in steps])
    return written


def meanings(stream, *, spelled_out: bool = True) -> dict[tuple[str, str], set[str]]:
    """The truths of each (text, structured form) of a stream; with `spelled_out` False, as questions
    were written before they named what they leave out."""
    truths: dict[tuple[str, str], set[str]] = defaultdict(set)
    for line in stream:
        text, form = line["text"], canonical(line["question"])
        excluding = line["question"].get(EXCLUDING)
        if spelled_out:
            form = f"{form} {excluding}"  # canonical() leaves `excluding` out: it keys facts, not words
        elif excluding:
            text = text.replace(f" other than {and_list(excluding)}", "")
        truths[(text, form)].add(line["answer"])
    return truths


def test_the_same_text_and_form_in_a_stream_have_the_same_truth(streams):
    for stream in streams:
        for (text, _), truths in meanings(stream).items():
            assert len(truths) == 1, f"{text!r} has the truths {sorted(truths)} in one stream"


def test_an_instantiation_question_names_the_labels_of_its_type_made_before_it(streams):
    named = 0
    for stream in streams:
        made: list[str] = []
        for line in stream:
            question = line["question"]
            if isinstance(kind_of(question["kind"]), InstantiationKind):
                excluded = [label for label in made if label.rsplit(" ", 1)[0] == question["type"]]
                assert question[EXCLUDING] == excluded
                if excluded:
                    named += 1
                    assert f" other than {excluded[0]}" in line["text"]
                else:
                    assert " other than " not in line["text"]
            if "label" in line:
                made.append(line["label"])
    assert named > 0  # the streams do ask about objects after some are labelled


def test_without_the_exclusions_the_same_words_would_mean_two_things(streams):
    clashes = [
        text
        for stream in streams
        for (text, _), truths in meanings(stream, spelled_out=False).items()
        if len(truths) > 1
    ]
    assert clashes, (
        "no stream asks an instantiation question again after a label: the first test proves nothing"
    )
