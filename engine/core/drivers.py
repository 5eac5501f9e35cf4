"""The two ways a stream is driven (VTT.md section 1).

- `run_automatic`: the answers come from the oracle, for a test image that is completely annotated.
- `InteractiveSession`: the answers come from outside (an operator truthing a test image): it proposes
  one question, waits for yes / no / ambiguous, and only then proposes the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.core.errors import HistoryError
from engine.core.oracle import Binding, PreparedScene, answer
from engine.core.proposer import EngineSettings, Estimate, Proposal, Stream
from engine.core.questions import Answer, Label, Question, question_from_json, question_to_json, render_text
from engine.core.scene import Scene
from engine.core.statistics import FittedStatistics
from engine.core.story import parse_history

# Rejected questions do not count towards max_questions; this bounds the proposals of a stream anyway.
PROPOSALS_PER_ANSWER_LIMIT = 4


def stream_rng(seed: int, index: int = 0) -> np.random.Generator:
    """One generator per (run seed, image position), so each image's stream is reproducible alone."""
    return np.random.default_rng([seed, index])


@dataclass(frozen=True)
class StreamStep:
    index: int
    question: Question
    estimate: Estimate
    answer: Answer
    label: Label | None

    def to_json(self, stats: FittedStatistics, image: str, width: float, height: float) -> dict[str, Any]:
        """One line of `vtt-engine generate`."""
        line: dict[str, Any] = {
            "image": image,
            "index": self.index,
            "question": question_to_json(self.question, stats.vocabulary, width, height),
            "text": render_text(self.question, stats.vocabulary),
            "p": self.estimate.p,
            "population": self.estimate.population,
            "answer": str(self.answer),
        }
        if self.label is not None:
            line["label"] = str(self.label)
        return line


def run_automatic(
    stats: FittedStatistics, scene: Scene, settings: EngineSettings, rng: np.random.Generator
) -> list[StreamStep]:
    """Truth a completely annotated image: propose, answer with the oracle, until the stream ends."""
    prepared = PreparedScene.build(scene, stats.vocabulary, stats.min_overlap)
    stream = Stream(stats, settings, rng)
    binding = Binding()
    steps: list[StreamStep] = []
    limit = PROPOSALS_PER_ANSWER_LIMIT * settings.max_questions
    while len(steps) < limit and (proposal := stream.propose()) is not None:
        given, singled_out = answer(prepared, binding, proposal.question)
        label = stream.record(proposal.question, given)
        if label is not None:
            assert singled_out is not None
            binding.bind(label, singled_out)
        steps.append(StreamStep(len(steps), proposal.question, proposal.estimate, given, label))
    return steps


class InteractiveSession:
    """Just-in-time truthing: one pending question at a time, answered from outside."""

    def __init__(self, stats: FittedStatistics, settings: EngineSettings, rng: np.random.Generator) -> None:
        self.stream = Stream(stats, settings, rng)
        self.steps: list[StreamStep] = []
        self.pending: Proposal | None = None
        self.finished = False

    def next_question(self) -> Proposal | None:
        """The pending question (proposing one if needed); None once the stream is over."""
        if self.pending is None and not self.finished:
            self.pending = self.stream.propose()
            self.finished = self.pending is None
        return self.pending

    def answer(self, given: Answer) -> StreamStep:
        """Record the answer to the pending question (ambiguous means the operator rejected it)."""
        if self.pending is None:
            raise HistoryError("no question is waiting for an answer")
        proposal, self.pending = self.pending, None
        label = self.stream.record(proposal.question, given)
        step = StreamStep(len(self.steps), proposal.question, proposal.estimate, given, label)
        self.steps.append(step)
        return step


def estimate_after(
    stats: FittedStatistics, history: Any, question: Any, width: float, height: float, where: str = "question"
) -> tuple[Question, Estimate]:
    """Parse a history and a question (JSON documents) and estimate the question after the history."""
    if not (width > 0 and height > 0):
        raise HistoryError("width and height must be positive", where="width/height")
    entries = parse_history(history, stats.vocabulary, width, height)
    parsed = question_from_json(question, stats.vocabulary, width, height, where)
    stream = Stream(stats, EngineSettings(), stream_rng(0))
    for asked, given in entries:
        stream.record(asked, given)
    stream.story.check(parsed, where)
    return parsed, stream.estimate(parsed)
