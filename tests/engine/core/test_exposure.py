"""The exposure-aware draw (issue 18): a stream dealt to one session of many prefers the candidates
whose facts earlier sessions were told least. Here a fact is simply a question (whatever the history),
which is enough to see the rule; what dealing counts as a fact is scoring.reuse's (tests/truthing)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import pytest

from demo.synthetic.scenes import generate_scenes
from engine.core.candidates import Proposal
from engine.core.drivers import StreamStep, run_automatic, stream_seed
from engine.core.proposer import Stream
from engine.core.settings import EngineSettings
from engine.core.statistics import fit
from kernel.questions import Answer, Question
from kernel.scene import parse_scene
from tests.engine.core.random_scenes import default_vocabulary

VOCABULARY = default_vocabulary()
SETTINGS = EngineSettings(min_population=10, max_questions=20)


class Told:
    """How many earlier streams asked each question."""

    def __init__(self, streams: Sequence[Sequence[StreamStep]]) -> None:
        self.counts = Counter(q for steps in streams for q in {s.question for s in steps})
        self.histories: list[int] = []

    def after(self, history: Sequence[tuple[Question, Answer]]) -> Callable[[Question], int]:
        self.histories.append(len(history))
        return lambda question: self.counts[question]


class Nothing:
    def after(self, history: Sequence[tuple[Question, Answer]]) -> Callable[[Question], int]:
        return lambda question: 0


@pytest.fixture(scope="module")
def street():
    stats = fit(VOCABULARY, [parse_scene(s, VOCABULARY) for s in generate_scenes(400, seed=71)])
    scenes = [parse_scene(s, VOCABULARY) for s in generate_scenes(4, seed=72)]
    return stats, scenes


def test_an_exposure_of_nothing_draws_exactly_what_no_exposure_draws(street):
    stats, scenes = street
    for i, scene in enumerate(scenes):
        seed = stream_seed(3, i)
        assert run_automatic(stats, scene, SETTINGS, seed, exposure=Nothing()) == run_automatic(
            stats, scene, SETTINGS, seed
        )


def test_a_stream_draws_among_the_least_told_candidates_and_resumes_with_the_same_exposure(street):
    stats, scenes = street
    scene = scenes[0]
    earlier = [run_automatic(stats, scene, SETTINGS, stream_seed(4, 0, n)) for n in range(3)]
    told = Told(earlier)
    steps = run_automatic(stats, scene, SETTINGS, stream_seed(4, 0, 9), exposure=told)
    assert told.histories == list(range(len(steps)))  # asked once per proposal, not per candidate
    history: list[tuple[Question, Answer]] = []
    avoided = fell_back = 0
    for step in steps:
        resumed = Stream.resume(stats, SETTINGS, stream_seed(4, 0, 9), history, told)
        choice = resumed.candidates()
        preferred = [told.counts[c.question] for c in choice.preferred]
        group = [told.counts[c.question] for c in choice.group]
        # The least told preferred (sharp) candidates; when all of them were told, the group's untold
        # candidates if it has any.
        drawn_preferred = step.question in {c.question for c in choice.preferred}
        falls_back = min(preferred) > 0 and min(group) == 0
        assert drawn_preferred != falls_back
        assert told.counts[step.question] == (0 if falls_back else min(preferred))
        avoided += min(group) < max(group)
        fell_back += falls_back
        assert resumed.propose() == Proposal(step.question, step.estimate)  # resumed, the same proposal
        # p and population are the plain stream's: the exposure only chooses among its candidates.
        plain = Stream.resume(stats, SETTINGS, stream_seed(4, 0, 9), history)
        assert plain.candidates() == choice
        history.append((step.question, step.answer))
    assert avoided, "no step had a told candidate to avoid"
    assert fell_back, "no step had every sharp candidate told (the fallback to the group is untested)"
