"""Quality control of truthed streams: checks of a stream by a second operator, their answers, and the
disagreements a reviewer adjudicates (docs/truthing.md)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from truthing.models.streams import Step, StepAnswer, Stream
from vtt_site.leases import Leased


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
