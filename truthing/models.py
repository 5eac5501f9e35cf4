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
from django.db import models
from django.db.models import Q
from django.utils import timezone

from truthing.queues import AUDIT_RUN, AUTOMATIC_TRUTHING_RUN, DEAL_RUN
from vtt_site.jobs import Job
from vtt_site.leases import Leased


class TestState(models.TextChoices):
    DRAFT = "draft"
    TRUTHING = "truthing"
    PUBLISHED = "published"
    ARCHIVED = "archived"


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


# --- Quality control ----------------------------------------------------------------------------------


class CheckKind(models.TextChoices):
    SECOND_OPINION = "second_opinion", "a second operator checks an operator's stream"
    GOLD = "gold", "an operator answers a stream the oracle truthed (they are not told)"


class Check(Leased):
    """A second pass over an ended stream's questions: the checker answers each, without seeing the
    stored answers. Disagreements of a second opinion go to adjudication; gold answers are scored."""

    stream = models.ForeignKey(Stream, on_delete=models.CASCADE, related_name="checks")
    kind = models.CharField(max_length=16, choices=CheckKind.choices)
    checker = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["stream", "kind"], name="one_check_per_kind")]

    def __str__(self) -> str:
        return f"{self.kind} check of stream {self.stream_id}"


class CheckAnswer(models.Model):
    check_pass = models.ForeignKey(Check, on_delete=models.CASCADE, related_name="answers")
    step = models.ForeignKey(Step, on_delete=models.CASCADE, related_name="check_answers")
    answer = models.CharField(max_length=10, choices=StepAnswer.choices)
    answered_at = models.DateTimeField(default=timezone.now)
    seconds = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["check_pass", "step__index"]
        constraints = [models.UniqueConstraint(fields=["check_pass", "step"], name="one_answer_per_step")]

    def __str__(self) -> str:
        return f"{self.answer} to step {self.step_id} in check {self.check_pass_id}"


class DisagreementState(models.TextChoices):
    OPEN = "open"
    RESOLVED = "resolved"
    OBSOLETE = "obsolete", "obsolete (its step was proposed again)"


class Disagreement(models.Model):
    """A checker answered a step differently from the stored answer; a reviewer decides."""

    step = models.ForeignKey(Step, on_delete=models.CASCADE, related_name="disagreements")
    check_answer = models.OneToOneField(CheckAnswer, on_delete=models.CASCADE, related_name="disagreement")
    state = models.CharField(max_length=10, choices=DisagreementState.choices, default=DisagreementState.OPEN)
    decided_answer = models.CharField(max_length=10, choices=StepAnswer.choices, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["state", "id"], name="disagreement_queue")]

    def __str__(self) -> str:
        return f"disagreement on step {self.step_id} ({self.state})"


# --- Automatic truthing ----------------------------------------------------------------------------------


class AutomaticTruthing(Job):
    """The oracle truthing a test's annotated images: one background job per test (vtt_site.jobs)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        TRUTHING = "truthing"
        DONE = "done"
        FAILED = "failed"

    running_statuses = (Status.TRUTHING,)
    done_status = Status.DONE
    task = AUTOMATIC_TRUTHING_RUN

    test = models.ForeignKey(Test, on_delete=models.CASCADE, related_name="automatic_truthings")
    # The oracle's work on a test is split in `parts` jobs that workers run side by side: part k truths
    # the images at positions p with p % parts == k.
    part = models.PositiveSmallIntegerField(default=0)
    parts = models.PositiveSmallIntegerField(default=1)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    streams_total = models.PositiveIntegerField(default=0)
    streams_done = models.PositiveIntegerField(default=0)

    class Meta(Job.Meta):
        verbose_name = "automatic truthing"
        constraints = [models.UniqueConstraint(fields=["test", "part"], name="one_job_per_part")]

    def __str__(self) -> str:
        return f"automatic truthing of {self.test_id}, part {self.part + 1} of {self.parts} ({self.status})"


class TestAudit(Job):
    """The independent audit of a test (engine.audit): a blind guesser trained on oracle streams of the
    statistics' training images, scored on the test's own streams. What a test author shows reviewers."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        AUDITING = "auditing"
        DONE = "done"
        FAILED = "failed"

    running_statuses = (Status.AUDITING,)
    done_status = Status.DONE
    task = AUDIT_RUN

    test = models.OneToOneField(Test, on_delete=models.CASCADE, related_name="audit")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    report = models.JSONField(default=dict, blank=True)
    reliability_svg = models.TextField(blank=True, help_text="The reliability diagram of the engine's p.")

    class Meta(Job.Meta):
        verbose_name = "test audit"

    def __str__(self) -> str:
        return f"audit of {self.test_id} ({self.status})"


# --- Dealing ---------------------------------------------------------------------------------------------


class Deal(Job):
    """The streams dealt to one session of a published test (docs/evaluation.md, "Dealt streams"): one
    per test image, in an order of its own. An oracle-truthed image gets a fresh stream, generated by
    this job with the deal's seed and answered by the oracle; an operator-truthed image gets the stream
    of its pool dealt least so far (truthing.published). The evaluation app's session points to its deal;
    truthing never reads a session. Done at once when no stream has to be generated."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        DEALING = "dealing"
        DONE = "done"
        FAILED = "failed"

    running_statuses = (Status.DEALING,)
    done_status = Status.DONE
    task = DEAL_RUN

    test = models.ForeignKey(Test, on_delete=models.PROTECT, related_name="deals")
    # The same-owner rule: a pool stream is not dealt twice to one owner while the pool has another.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seed = models.PositiveBigIntegerField(help_text="Drawn at random; the seed of the streams generated.")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    streams_total = models.PositiveIntegerField(default=0)
    streams_done = models.PositiveIntegerField(default=0)

    class Meta(Job.Meta):
        verbose_name = "deal"

    def __str__(self) -> str:
        return f"deal {self.pk} of test {self.test_id} ({self.status})"


class DealtStream(models.Model):
    """The stream a deal gives a session for one test image, at its position in the session's order;
    `stream` is empty until the deal's job has generated it (an oracle-truthed image)."""

    deal = models.ForeignKey(Deal, on_delete=models.CASCADE, related_name="dealt")
    position = models.PositiveIntegerField()
    test_image = models.ForeignKey(TestImage, on_delete=models.PROTECT, related_name="+")
    stream = models.ForeignKey(Stream, null=True, on_delete=models.PROTECT, related_name="dealings")

    class Meta:
        ordering = ["deal", "position"]
        constraints = [
            models.UniqueConstraint(fields=["deal", "position"], name="one_dealt_stream_per_position"),
            models.UniqueConstraint(fields=["deal", "test_image"], name="one_dealt_stream_per_test_image"),
        ]

    def __str__(self) -> str:
        return f"position {self.position} of deal {self.deal_id}"
