"""The two ways a stream is driven (docs/method.md section 1).

- `run_automatic`: the answers come from the oracle, for a test image that is completely annotated.
- just-in-time truthing: the answers come from outside (an operator). The caller keeps the history
  (in a database, say) and, for each next question, rebuilds the stream with `Stream.resume` and calls
  `propose()`; nothing lives in memory between two answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.exposure import Exposure
from engine.core.oracle import answer
from engine.core.proposer import Stream
from engine.core.settings import EngineSettings
from engine.core.statistics import FittedStatistics
from engine.core.story import parse_history
from kernel.errors import HistoryError
from kernel.estimates import Estimate
from kernel.kinds import question_from_json, question_to_json, render_text
from kernel.prepared import Binding, PreparedScene
from kernel.questions import Answer, Label, Question
from kernel.scene import Scene

# Rejected questions do not count towards max_questions; this bounds the proposals of a stream anyway.
PROPOSALS_PER_ANSWER_LIMIT = 4


def stream_seed(seed: int, index: int = 0, number: int = 0) -> tuple[int, ...]:
    """The seed of stream `number` of the image at `index` in a run seeded `seed`: each image's stream is
    reproducible alone. The first stream of an image is `(seed, index)`, as `vtt-engine generate` seeds
    it, so a test's automatic truthing and `generate` agree step for step."""
    return (seed, index) if number == 0 else (seed, index, number)


@dataclass(frozen=True)
class StreamStep:
    index: int
    question: Question
    estimate: Estimate
    answer: Answer
    label: Label | None
    made: tuple[Label, ...] = ()  # the labels the stream made before this step

    def to_json(self, stats: FittedStatistics, image: str, width: float, height: float) -> dict[str, Any]:
        """One line of `vtt-engine generate`."""
        line: dict[str, Any] = {
            "image": image,
            "index": self.index,
            "question": question_to_json(self.question, stats.vocabulary, width, height, self.made),
            "text": render_text(self.question, stats.vocabulary, self.made),
            "p": self.estimate.p,
            "population": self.estimate.population,
            "answer": str(self.answer),
        }
        if self.label is not None:
            line["label"] = str(self.label)
        return line


def run_automatic(
    stats: FittedStatistics,
    scene: Scene,
    settings: EngineSettings,
    seed: Sequence[int],
    *,
    exposure: Exposure | None = None,
    between_steps: Callable[[], object] | None = None,
) -> list[StreamStep]:
    """Truth a completely annotated image: propose, answer with the oracle, until the stream ends.
    `exposure`: a stream dealt to one session of many prefers what earlier sessions were told least.
    `between_steps` is called before each proposal (a long job gives way to interactive work there);
    it cannot change the stream."""
    prepared = PreparedScene.build(scene, stats.vocabulary, stats.min_overlap)
    stream = Stream(stats, settings, seed, exposure)
    binding = Binding()
    steps: list[StreamStep] = []
    limit = PROPOSALS_PER_ANSWER_LIMIT * settings.max_questions
    while len(steps) < limit:
        if between_steps is not None:
            between_steps()
        if (proposal := stream.propose()) is None:
            break
        given, singled_out = answer(prepared, binding, proposal.question)
        made = tuple(stream.story.made())
        label = stream.record(proposal.question, given)
        if label is not None:
            assert singled_out is not None
            binding.bind(label, singled_out)
        steps.append(StreamStep(len(steps), proposal.question, proposal.estimate, given, label, made))
    return steps


def estimate_after(
    stats: FittedStatistics, history: Any, question: Any, width: float, height: float, where: str = "question"
) -> tuple[Question, Estimate, list[Label]]:
    """Parse a history and a question (JSON documents) and estimate the question after the history;
    with the labels the history made (the question's English names the ones it leaves out)."""
    if not (width > 0 and height > 0):
        raise HistoryError("width and height must be positive", where="width/height")
    entries = parse_history(history, stats.vocabulary, width, height)
    parsed = question_from_json(question, stats.vocabulary, width, height, where)
    stream = Stream.resume(stats, EngineSettings(), (0,), entries)
    stream.story.check(parsed, where)
    stream.story.check_excluding(parsed, question, where)
    return parsed, stream.estimate(parsed), stream.story.made()
