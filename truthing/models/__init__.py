"""Truthing's models, one module per concept: tests and their streams (`streams`), quality control
(`checks`), the background jobs (`jobs`). Django finds an app's models here, so every one is named
below, and `truthing.models.<Name>` is how the rest of the app reaches them."""

from truthing.models.checks import Check, CheckAnswer, CheckKind, Disagreement, DisagreementState
from truthing.models.jobs import AutomaticTruthing, Deal, DealtStream, TestAudit
from truthing.models.streams import (
    MAX_OPEN_STREAMS,
    DealtStreams,
    PoolSteps,
    PoolStreams,
    Step,
    StepAnswer,
    Stream,
    StreamState,
    Test,
    TestImage,
    TestState,
    TruthingMode,
)

__all__ = [
    "MAX_OPEN_STREAMS",
    "AutomaticTruthing",
    "Check",
    "CheckAnswer",
    "CheckKind",
    "Deal",
    "DealtStream",
    "DealtStreams",
    "Disagreement",
    "DisagreementState",
    "PoolSteps",
    "PoolStreams",
    "Step",
    "StepAnswer",
    "Stream",
    "StreamState",
    "Test",
    "TestAudit",
    "TestImage",
    "TestState",
    "TruthingMode",
]
