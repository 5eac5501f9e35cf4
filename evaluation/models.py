"""Vision systems, their sessions on published tests, the answers they gave and their scores.

Invariants kept by evaluation.services:
- one session per (system, test), never restarted; a voided session stays on record; on a practice test
  (decision 0075) any number of sessions per (system, test), one of them active at a time;
- a session's answers are numbered by the position of their step in the plan of the streams dealt to it
  (unique (session, ordinal)), one per step (unique (session, step_id)), and `session.answered` is their
  count; up to `open_streams` streams are open at once, each answered in its order (`streams_at`);
- an answer is never changed once stored; scores are a pure function of the stored answers.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from evaluation.queues import RANKING_CHECK
from vtt_site.job_model import Job


class SystemShown(models.TextChoices):
    """What a system is shown of a question: a language model run without the image is the test's
    language prior, a row to read beside the same model seeing (docs/guides/vision-language-models.md)."""

    IMAGE = "image", "the image and the text"
    TEXT = "text", "the text only"


class VisionSystem(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vision_systems"
    )
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    url = models.URLField(blank=True, help_text="Code or paper.")
    public = models.BooleanField(default=True, help_text="Shown on the leaderboard to everyone.")
    baseline = models.CharField(
        max_length=30, blank=True, help_text="The built-in baseline this system is (manage.py run_baselines)."
    )
    shown = models.CharField(
        max_length=5,
        choices=SystemShown.choices,
        default=SystemShown.IMAGE,
        help_text="What the system is shown: the image, or the text only (a language prior).",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "id"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="unique_system_name")]

    def __str__(self) -> str:
        return self.name


class TestSchedule(models.Model):
    """Evaluation settings of a published test: an optional deadline."""

    test = models.OneToOneField("truthing.Test", on_delete=models.CASCADE, related_name="+")
    deadline = models.DateTimeField(
        null=True, blank=True, help_text="After it, unanswered questions count as wrong and sessions close."
    )

    def __str__(self) -> str:
        return f"schedule of test {self.test_id}"


class SessionState(models.TextChoices):
    ACTIVE = "active"
    FINISHED = "finished"
    EXPIRED = "expired", "closed by the deadline"
    VOIDED = "voided"


class Session(models.Model):
    system = models.ForeignKey(VisionSystem, on_delete=models.CASCADE, related_name="sessions")
    test = models.ForeignKey("truthing.Test", on_delete=models.PROTECT, related_name="+")
    # The session's own streams (truthing.published); empty for a session enrolled before tests were dealt,
    # which takes the test's streams in the test's order.
    deal = models.OneToOneField(
        "truthing.Deal", null=True, blank=True, on_delete=models.PROTECT, related_name="+", editable=False
    )
    state = models.CharField(max_length=10, choices=SessionState.choices, default=SessionState.ACTIVE)
    # A session of a practice test (the test's own flag, copied at enrolment: a published test's never
    # changes), so that the database can hold both rules of one session per system and test.
    practice = models.BooleanField(default=False, editable=False, help_text="A session of a practice test.")
    answered = models.PositiveIntegerField(default=0, help_text="Answers stored.")
    # The streams the system may work on at once (decision 0085): the test's setting, copied at enrolment
    # (a session enrolled before the setting existed takes one at a time).
    open_streams = models.PositiveSmallIntegerField(
        default=1, editable=False, help_text="Streams the system may work on at once."
    )
    # Where the session's streams stand (evaluation.selectors.streams): every stream before `streams_next`
    # has been opened, and `streams_at` holds the open ones, {stream position: its current step}. Null
    # for a session enrolled before it was kept, whose one open stream is where `answered` says.
    streams_next = models.PositiveIntegerField(null=True, blank=True, editable=False)
    streams_at = models.JSONField(default=dict, blank=True, editable=False)
    total = models.PositiveIntegerField(default=0, help_text="Questions in the test.")
    correct = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.TextField(blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    voided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [
            # A scored test is taken once; a practice test again and again, one session at a time.
            models.UniqueConstraint(
                fields=["system", "test"],
                condition=models.Q(practice=False),
                name="one_session_per_system_test",
            ),
            models.UniqueConstraint(
                fields=["system", "test"],
                condition=models.Q(practice=True, state=SessionState.ACTIVE),
                name="one_active_practice_session",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.system} on test {self.test_id}"

    @property
    def over(self) -> bool:
        return self.state != SessionState.ACTIVE


class Answer(models.Model):
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="answers")
    ordinal = models.PositiveIntegerField()
    step_id = models.PositiveIntegerField(help_text="The truthing step (kept as a number: never joined).")
    answer = models.BooleanField()
    p_yes = models.FloatField(
        null=True, blank=True, help_text="The system's probability that the truth is yes, if it gave one."
    )
    correct = models.BooleanField()
    answered_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["session", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["session", "ordinal"], name="one_session_answer_per_position"),
            models.UniqueConstraint(fields=["session", "step_id"], name="one_session_answer_per_step"),
            # A probability in [0, 1] that agrees with the answer: yes above 0.5, no below.
            models.CheckConstraint(
                condition=models.Q(p_yes__isnull=True)
                | models.Q(answer=True, p_yes__gte=0.5, p_yes__lte=1.0)
                | models.Q(answer=False, p_yes__gte=0.0, p_yes__lte=0.5),
                name="p_yes_agrees_with_answer",
            ),
        ]

    def __str__(self) -> str:
        return f"answer {self.ordinal} of session {self.session_id}"


class Score(models.Model):
    """A session's scores, computed by the scoring core (scoring.scores) from the stored answers alone,
    and stored by evaluation.services.scores."""

    session = models.OneToOneField(Session, on_delete=models.CASCADE, related_name="score")
    accuracy = models.FloatField(null=True)
    data = models.JSONField()
    version = models.PositiveIntegerField(
        default=1, help_text="The scoring.scores.SCORING_VERSION that computed it; older ones are recomputed."
    )
    computed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"score of session {self.session_id}"


class RankingCheck(Job):
    """Does the test rank vision? Simulated systems that see worse and worse (scoring.degradation), run
    through the scoring that scores real sessions; one per frozen test, redone when the scoring or the
    simulation changes. Its report is the test card's "A test that ranks vision"."""

    task = RANKING_CHECK

    test = models.OneToOneField("truthing.Test", on_delete=models.CASCADE, related_name="+")
    report = models.JSONField(default=dict, blank=True)
    version = models.CharField(
        max_length=20, blank=True, help_text="The scoring and simulation versions that made the report."
    )

    class Meta(Job.Meta):
        verbose_name = "ranking check"

    def __str__(self) -> str:
        return f"ranking check of test {self.test_id} ({self.status})"
