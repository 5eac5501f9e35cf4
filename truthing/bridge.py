"""Truthing's one adapter to the engine: no other truthing module imports `engine` (an import-linter
contract says so), and what they need of it they take from here.

A stream's rows (its test's frozen statistics and settings, its seed, its answered steps) become a core
`Stream` resumed from its history; a core proposal becomes the values of a step row. Nothing is kept
between two calls: the rows are the state (engine.core.proposer.Stream.resume). The engine's names that
truthing's services, forms and views use (its core's settings and statistics, its drivers, its audit,
its error codes) are this module's too, listed in `__all__`: values and functions, never the engine's
database models. The one model-level link is a test's fit (`Test.statistics`, a foreign key to the
engine's fitted statistics row): truthing holds such a row only as that link's value (`Fit`) and asks
about it here (`fit_ready`, `fit_label`, `fits_ready`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.audit.run import audit_streams, reliability_svg, training_streams
from engine.bridge import scenes_of
from engine.core.drivers import PROPOSALS_PER_ANSWER_LIMIT, StreamStep, run_automatic, stream_seed
from engine.core.exposure import Exposure
from engine.core.proposer import Stream
from engine.core.settings import EngineSettings
from engine.core.statistics import FittedStatistics as CoreStatistics
from engine.errors import EngineErrorCode
from engine.models import FitStatus, FittedStatistics
from engine.selectors import loaded_statistics, statistics_get
from engine.settings import engine_settings
from kernel.kinds import question_from_json, question_to_json, render_text
from kernel.questions import Answer, Label, Question
from truthing.models import Step, Test, TestImage
from truthing.models import Stream as TruthedStream

__all__ = [
    "PROPOSALS_PER_ANSWER_LIMIT",
    "CoreStatistics",
    "EngineErrorCode",
    "EngineSettings",
    "Fit",
    "ProposedStep",
    "StreamStep",
    "audit_streams",
    "engine_settings",
    "fit_label",
    "fit_ready",
    "fits_ready",
    "history_of",
    "oracle_step_rows",
    "proposals_after_each_prefix",
    "propose",
    "reliability_svg",
    "run_automatic",
    "scenes_of",
    "seed_of",
    "settings_of",
    "statistics_get",
    "statistics_of",
    "step_values",
    "stream_seed_of",
    "training_streams",
]


# A test's fit as truthing holds it: a row of the engine's fitted statistics, the value of `Test.statistics`.
Fit = Any


def fits_ready():
    """The fits a test may be built on (ready ones), newest first: the choices of a test's form."""
    return FittedStatistics.objects.filter(status=FitStatus.READY).order_by("-created_at")


def fit_ready(statistics: Fit) -> bool:
    return statistics.status == FitStatus.READY


def fit_label(statistics: Fit) -> str:
    """How a person tells fits apart in a choice."""
    plural = "" if statistics.n_images == 1 else "s"
    return (
        f"Statistics {statistics.pk}: fitted {statistics.created_at:%Y-%m-%d %H:%M} on "
        f"{statistics.n_images} training image{plural}"
    )


@dataclass(frozen=True)
class ProposedStep:
    """What a step row stores about its question."""

    question: dict[str, Any]
    text: str
    p: float | None
    population: int


def statistics_of(test: Test) -> CoreStatistics:
    return loaded_statistics(test.statistics)


def settings_of(test: Test) -> EngineSettings:
    """The settings frozen with the test (a bad stored value is refused with the setting named)."""
    return engine_settings(**test.engine_settings)


def seed_of(test_image: TestImage, number: int) -> tuple[int, ...]:
    return stream_seed(test_image.test.seed, test_image.position, number)


# Marks a seed as a deal's: (test seed, position, DEALT, deal seed) is no seed of a test's own stream.
DEALT = 0xDEA1


def dealt_seed_of(test_image: TestImage, deal_seed: int) -> tuple[int, ...]:
    """The seed of the stream generated for one deal (one session) on this image: the deal's own."""
    return (test_image.test.seed, test_image.position, DEALT, deal_seed)


def stream_seed_of(stream: TruthedStream) -> tuple[int, ...]:
    """The seed any stream row was proposed with: a test's own, or the deal's it was generated for."""
    if stream.deal is not None:
        return dealt_seed_of(stream.test_image, stream.deal.seed)
    return seed_of(stream.test_image, stream.number)


def proposals_after_each_prefix(
    stream: TruthedStream, steps: Sequence[Step], exposure: Exposure | None
) -> list[dict[str, Any]]:
    """The structured question the engine proposes after each prefix of the stream's answered steps,
    resumed from the stored answers alone (with the exposure it was dealt with, if any)."""
    test_image = stream.test_image
    stats, settings = statistics_of(test_image.test), settings_of(test_image.test)
    seed = stream_seed_of(stream)
    proposed = []
    for k in range(len(steps)):
        resumed = Stream.resume(stats, settings, seed, history_of(stats, test_image, steps[:k]), exposure)
        proposal = resumed.propose()
        proposed.append(
            {}
            if proposal is None
            else step_values(stats, test_image, proposal.question, None, 0, resumed.story.made()).question
        )
    return proposed


def history_of(
    stats: CoreStatistics, test_image: TestImage, steps: Iterable[Step]
) -> list[tuple[Question, Answer]]:
    """The answered steps as the core's (question, answer) history."""
    image = test_image.image
    return [
        (question_from_json(step.question, stats.vocabulary, image.width, image.height), Answer(step.answer))
        for step in steps
    ]


def propose(test_image: TestImage, number: int, answered: Sequence[Step]) -> ProposedStep | None:
    """The question that follows the answered steps, or None when the stream is over."""
    test = test_image.test
    stats = statistics_of(test)
    settings = settings_of(test)
    stream = Stream.resume(
        stats, settings, seed_of(test_image, number), history_of(stats, test_image, answered)
    )
    proposal = stream.propose()
    if proposal is None:
        return None
    return step_values(
        stats,
        test_image,
        proposal.question,
        proposal.estimate.p,
        proposal.estimate.population,
        stream.story.made(),
    )


def step_values(
    stats: CoreStatistics,
    test_image: TestImage,
    question: Question,
    p: float | None,
    population: int,
    made: Sequence[Label],
) -> ProposedStep:
    """What a step row stores of a question asked after a stream that made the labels `made`."""
    image = test_image.image
    return ProposedStep(
        question=question_to_json(question, stats.vocabulary, image.width, image.height, made),
        text=render_text(question, stats.vocabulary, made),
        p=p,
        population=population,
    )


def oracle_step_rows(
    stream: TruthedStream, steps: list[StreamStep], stats: CoreStatistics, now: datetime
) -> Iterator[Step]:
    """The step rows of a stream the oracle answered (engine.core.drivers.run_automatic's steps)."""
    return (
        Step(
            stream=stream,
            index=step.index,
            automatic=True,
            proposed_at=now,
            answered_at=now,
            answer=str(step.answer),
            label=str(step.label) if step.label is not None else "",
            **vars(
                step_values(
                    stats,
                    stream.test_image,
                    step.question,
                    step.estimate.p,
                    step.estimate.population,
                    step.made,
                )
            ),
        )
        for step in steps
    )
