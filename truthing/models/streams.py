"""Tests under construction and their truthed question streams (docs/method.md sections 1, 5 and 6).

A test is a set of test images, each with one or more question streams, built once and then given to any
number of vision systems. A stream's questions are a pure function of the test's frozen statistics and
settings, the stream's seed and the answers stored so far (engine.core.proposer.Stream.resume), so the
rows below are the whole state: any worker can propose the next question, and recomputing a stream from
its stored answers gives the same questions.

Invariants kept by the services (truthing/services/):
- a stream's steps are numbered 0, 1, 2, ... without gaps (unique (stream, index));
- at most one step of a stream is unanswered, and it is the last one (the pending question);
- a published test's streams and steps never change.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from vtt_site.leases import Leased


class TestState(models.TextChoices):
    DRAFT = "draft"
    TRUTHING = "truthing"
    PUBLISHED = "published"
    ARCHIVED = "archived"


# The most streams of a session a test may open at once.
MAX_OPEN_STREAMS = 64


class Test(models.Model):
    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    # PROTECT: a test is frozen with the statistics it was built on.
    statistics = models.ForeignKey("engine.FittedStatistics", on_delete=models.PROTECT, related_name="tests")
    # The engine settings (engine.core.settings.EngineSettings as a JSON object), frozen with the test.
    engine_settings = models.JSONField(default=dict)
    seed = models.PositiveIntegerField(default=0)
    streams_per_image = models.PositiveSmallIntegerField(default=1)
    state = models.CharField(max_length=10, choices=TestState.choices, default=TestState.DRAFT)
    # A practice test (decision 0075): any system may take it any number of times, each time dealt fresh
    # streams; never on a leaderboard, never counted against the cap. Chosen until it is published, fixed
    # after: its truths are told to anyone, so its images are never those of a scored test.
    practice = models.BooleanField(
        "practice test",
        default=False,
        help_text="A practice test: systems may take it again and again; it is never on a leaderboard. "
        "Its images may not be in a scored test.",
    )
    # How many streams of a session a system may work on at once (decision 0085): the streams of a
    # session are independent (each its own image and history), only within one is the order strict.
    # 1 is one question at a time, in the order of the streams. Chosen until the test is published.
    open_streams = models.PositiveSmallIntegerField(
        "open streams per session",
        default=8,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_OPEN_STREAMS)],
        help_text="How many streams of a session a system may work on at once (1: one question at a time).",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def frozen(self) -> bool:
        return self.state in (TestState.PUBLISHED, TestState.ARCHIVED)


class TruthingMode(models.TextChoices):
    AUTOMATIC = "automatic", "by the oracle"
    OPERATOR = "operator", "by operators"


class TestImage(models.Model):
    test = models.ForeignKey(Test, on_delete=models.CASCADE, related_name="test_images")
    image = models.ForeignKey("annotations.Image", on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField(help_text="Order of the image in the test; part of its seed.")
    # Decided when truthing starts: images with a reviewed annotation are truthed by the oracle.
    mode = models.CharField(max_length=10, choices=TruthingMode.choices, default=TruthingMode.OPERATOR)

    class Meta:
        ordering = ["test", "position"]
        constraints = [
            models.UniqueConstraint(fields=["test", "image"], name="unique_test_image"),
            models.UniqueConstraint(fields=["test", "position"], name="unique_test_image_position"),
        ]

    def __str__(self) -> str:
        return f"{self.image_id} in {self.test_id}"


class StreamState(models.TextChoices):
    PROPOSING = "proposing", "waiting for the engine"
    PENDING = "pending", "waiting for an answer"
    ENDED = "ended"


class PoolStreams(models.Manager):
    """A test's own streams (its pool): truthed by its operators or the oracle, shown on its card,
    audited, checked and dealt from. The default manager, so that a query about a test's streams cannot
    take in a session's private ones by leaving out a filter (issue 47)."""

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().filter(deal__isnull=True)


class DealtStreams(models.Manager):
    """The streams generated for one deal (a session's fresh oracle streams), never shown to another
    session: reached only from truthing.published, the room of a published test's life."""

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().filter(deal__isnull=False)


class PoolSteps(models.QuerySet):
    def of_pool_streams(self) -> models.QuerySet:
        """The steps of a test's own streams (its pool), none of a session's dealt ones."""
        return self.filter(stream__deal__isnull=True)


class Stream(Leased):
    """One question stream on one test image; an operator holds it (a lease) until it ends.

    Two kinds share this table: a test's pool streams (`Stream.objects`, the default) and the streams
    dealt to a session (`Stream.dealt`, from truthing.published only). A step's, a dealt stream's or
    a check's own stream (a foreign key) is reached whatever its kind (Django's base manager)."""

    test_image = models.ForeignKey(TestImage, on_delete=models.CASCADE, related_name="streams")
    number = models.PositiveSmallIntegerField(default=0)
    # The deal this stream was generated for (a fresh oracle stream of one session: never dealt to
    # another); empty for the test's own streams (the pool of an operator-truthed image).
    deal = models.ForeignKey(
        "Deal", null=True, blank=True, on_delete=models.CASCADE, related_name="generated", editable=False
    )
    # A dealt stream's exposure (truthing.published.exposure): the earlier dealt streams of its image whose shown
    # questions its draw avoided, by id, so that a replay rebuilds the same exposure. Empty: none.
    exposure_streams = models.JSONField(default=list, blank=True, editable=False)
    # Set on a pool stream an admin added after the test was published (a pool grown): operators truth
    # it while the test is published; it is dealt once it has ended and its checks are settled.
    grown_at = models.DateTimeField(null=True, blank=True, editable=False)
    state = models.CharField(max_length=10, choices=StreamState.choices, default=StreamState.PROPOSING)
    # Since when the stream waits for the engine: one waiting longer than JOB_STALE_SECONDS lost its
    # proposal task (a dead worker, a broker that was down), and the sweeper queues it again.
    proposing_since = models.DateTimeField(null=True, blank=True, default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)

    objects = PoolStreams()
    dealt = DealtStreams()

    class Meta:
        ordering = ["test_image__test", "test_image__position", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["test_image", "number"], condition=Q(deal__isnull=True), name="unique_stream"
            ),
            models.UniqueConstraint(
                fields=["test_image", "deal"],
                condition=Q(deal__isnull=False),
                name="one_dealt_stream_per_image",
            ),
        ]
        indexes = [models.Index(fields=["state", "id"], name="stream_queue")]

    def __str__(self) -> str:
        return f"stream {self.number} of {self.test_image}"


class StepAnswer(models.TextChoices):
    YES = "yes"
    NO = "no"
    AMBIGUOUS = "ambiguous", "ambiguous (rejected)"


class Step(models.Model):
    stream = models.ForeignKey(Stream, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveIntegerField()
    question = models.JSONField(help_text="Structured form (docs/method.md section 9), pixel boxes.")
    text = models.TextField()
    p = models.FloatField(null=True, help_text="The engine's P(yes) when it proposed the question.")
    population = models.PositiveIntegerField(default=0)
    answer = models.CharField(max_length=10, choices=StepAnswer.choices, blank=True)
    label = models.CharField(
        max_length=60, blank=True, help_text="The label a positive uniqueness answer made."
    )
    # Where the operator clicked the object their "yes" singled out (image pixels), so that the label
    # means that object by their explicit choice, not by their memory. Optional; never shown to a vision
    # system (truthing.published reads named columns only).
    point_x = models.FloatField(null=True, blank=True, help_text="The label's object, as clicked: x.")
    point_y = models.FloatField(null=True, blank=True, help_text="The label's object, as clicked: y.")
    answered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    automatic = models.BooleanField(default=False, help_text="Answered by the oracle.")
    proposed_at = models.DateTimeField(default=timezone.now)
    answered_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True, help_text="How long the operator took to answer.")

    objects = PoolSteps.as_manager()

    class Meta:
        ordering = ["stream", "index"]
        constraints = [
            models.UniqueConstraint(fields=["stream", "index"], name="unique_step"),
            # At most one pending (unanswered) step per stream.
            models.UniqueConstraint(fields=["stream"], condition=Q(answer=""), name="one_pending_step"),
            # A point marks a label: both coordinates or neither, and only on a step that made a label.
            models.CheckConstraint(
                condition=Q(point_x__isnull=True, point_y__isnull=True)
                | (Q(point_x__isnull=False, point_y__isnull=False) & ~Q(label="")),
                name="point_marks_a_label",
            ),
        ]

    def __str__(self) -> str:
        return f"step {self.index} of stream {self.stream_id}"

    @property
    def point(self) -> list[float] | None:
        return None if self.point_x is None or self.point_y is None else [self.point_x, self.point_y]
