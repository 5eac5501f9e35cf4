"""The label an answer makes, read off the structured forms alone (kernel.kinds.label_made), is the one
the engine's story gives: an operator's answer is stored without the engine (issue 35)."""

from __future__ import annotations

import numpy as np

from engine.core.story import Story
from kernel.kinds import label_made, question_to_json
from kernel.prepared import PreparedScene
from tests.engine.core.random_scenes import random_history, random_scene, small_vocabulary

V = small_vocabulary()


def test_the_label_of_every_answer_is_the_storys_on_random_histories():
    rng = np.random.default_rng(35)
    compared = labelled = 0
    for i in range(60):
        scene = PreparedScene.build(random_scene(rng, V, f"s{i}"), V)
        history, _ = random_history(rng, V, scene, length=25)
        story = Story(V)
        answered: list[tuple[dict, str]] = []
        for question, given in history:
            document = question_to_json(question, V, 640, 480)
            expected = story.record(question, given)
            assert label_made(answered, document, str(given)) == ("" if expected is None else str(expected))
            answered.append((document, str(given)))
            compared += 1
            labelled += expected is not None
    assert compared == 60 * 25 and labelled > 50
