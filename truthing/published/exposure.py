"""What earlier sessions were told about a test image, in the form the engine's draw asks for it (issue 18).

A session dealt a fresh oracle stream should be asked what earlier sessions were told least: given an
exposure, the engine's draw keeps the least exposed of its sharp candidates, or when all of them were
told, the untold candidates of their group (engine.core.exposure.Exposure, docs/engine.md step 3).
Exposure is counted as the reuse attacker remembers (scoring.reuse: the reusable key of every question
a stream revealed), over the shown steps of the latest dealt streams of the image. The deal's job
stores the ids of those streams on the stream it writes (`Stream.exposure_streams`), so that a replay
rebuilds the same exposure from the same rows.

Core questions become the structured documents the attacker keys through one conversion (the kernel's),
used for the candidates and for the earlier streams' stored questions alike, so that a fact has one
key whichever side it comes from. It needs the vocabulary, not the engine: truthing.bridge hands it to
the proposer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from kernel.kinds import label_made, question_from_json, question_to_json
from kernel.questions import Answer, Question
from kernel.vocabulary import Vocabulary
from scoring.reuse import Exposure, Seen
from truthing.conf import conf
from truthing.models import Step, StepAnswer, Stream, TestImage


class Documents:
    """Core questions of one test image as the structured documents a step row stores (pixel boxes),
    which is what the attacker keys. Kept per question: a stream asks about the same questions step
    after step (its history, then its next candidates)."""

    def __init__(self, vocabulary: Vocabulary, test_image: TestImage) -> None:
        image = test_image.image
        self.vocabulary, self.width, self.height = vocabulary, image.width, image.height
        self._documents: dict[Question, dict[str, Any]] = {}

    def of(self, question: Question) -> dict[str, Any]:
        document = self._documents.get(question)
        if document is None:
            document = self._documents[question] = question_to_json(
                question, self.vocabulary, self.width, self.height
            )
        return document

    def shown(self, history: Sequence[tuple[Question, Answer]]) -> list[Seen]:
        """A core history as a system is shown it: answered entries only, with the labels they made
        (kernel.kinds.label_made, as the engine's story makes them)."""
        shown: list[Seen] = []
        answered: list[tuple[dict[str, Any], str]] = []
        for question, answer in history:
            document = self.of(question)
            label = label_made(answered, document, str(answer))
            answered.append((document, str(answer)))
            if answer != Answer.AMBIGUOUS:
                shown.append(Seen(document, answer == Answer.YES, label))
        return shown

    def stored(self, steps: Iterable[Step]) -> list[Seen]:
        """A stored stream's shown steps, in order, as its system saw them. Parsed back into core
        questions first, so that they are written out exactly as the candidates are."""
        return [
            Seen(
                self.of(question_from_json(step.question, self.vocabulary, self.width, self.height)),
                step.answer == StepAnswer.YES,
                step.label,
            )
            for step in steps
        ]


class ImageExposure:
    """engine.core.exposure.Exposure on one test image: how many of the earlier streams counted in
    `revealed` told each question's fact, after a history of the stream being dealt."""

    def __init__(self, documents: Documents, revealed: Exposure) -> None:
        self.documents, self.revealed = documents, revealed

    def after(self, history: Sequence[tuple[Question, Answer]]) -> Callable[[Question], int]:
        exposure = self.revealed.after(self.documents.shown(history))
        return lambda question: exposure(self.documents.of(question))


def image_exposure(
    vocabulary: Vocabulary, test_image: TestImage, streams: Iterable[Sequence[Seen]]
) -> ImageExposure:
    """The exposure made of earlier streams of this image, given as their systems saw them."""
    return ImageExposure(Documents(vocabulary, test_image), Exposure.of_streams(test_image.pk, streams))


def exposure_sources(test_image: TestImage, *, deal_id: int) -> list[int]:
    """The streams a new stream of `deal_id` on this image takes its exposure from: the latest dealt
    streams written for the image by earlier deals (at most TRUTHING_DEAL_EXPOSURE_STREAMS of them: an
    attacker who has seen more sessions than that knows most facts anyway, and it bounds what a deal
    reads), by id. Never a stream of its own deal or of a later one (decision 0097): a deal's streams
    are then the same whichever of its dealers writes each, in whatever order."""
    window = conf.TRUTHING_DEAL_EXPOSURE_STREAMS
    latest = (
        Stream.dealt.filter(test_image=test_image, deal_id__lt=deal_id)
        .order_by("-pk")
        .values_list("pk", flat=True)[:window]
    )
    return sorted(latest)


def exposure_of(vocabulary: Vocabulary, test_image: TestImage, stream_ids: Sequence[int]) -> ImageExposure:
    """The exposure made of the shown steps of the given streams of this image (a deal's, or a replay's
    from the ids stored on the stream)."""
    steps: dict[int, list[Step]] = {pk: [] for pk in stream_ids}
    rows = (
        Step.objects.filter(stream_id__in=stream_ids, answer__in=(StepAnswer.YES, StepAnswer.NO))
        .only("stream", "index", "question", "answer", "label")
        .order_by("stream_id", "index")
    )
    for step in rows:
        steps[step.stream_id].append(step)
    documents = Documents(vocabulary, test_image)
    revealed = Exposure.of_streams(test_image.pk, (documents.stored(s) for s in steps.values()))
    return ImageExposure(documents, revealed)
