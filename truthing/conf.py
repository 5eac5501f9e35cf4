"""The truthing app's settings (vtt_site.app_settings): read as `conf.NAME`, overridden in a test as a
Django setting of the same name."""

from __future__ import annotations

from vtt_site.app_settings import FLOAT, INT, AppSettings, Setting, at_least, between


class TruthingSettings(AppSettings):
    """Truthing: the operator queue, checks and gold work, automatic truthing, deals and audits"""

    TRUTHING_LEASE_MINUTES = Setting(
        INT, 30, "How long an operator holds a stream or a check without answering.", check=at_least(1)
    )
    TRUTHING_CHECK_SHARE = Setting(
        FLOAT, 0.2, "The share of operator-truthed streams a second operator checks.", check=between(0, 1)
    )
    TRUTHING_GOLD_SHARE = Setting(
        FLOAT,
        0.1,
        "The share of oracle-truthed streams given to an operator as gold work (not told), to measure "
        "operators against the oracle.",
        check=between(0, 1),
    )
    TRUTHING_ANSWER_WAIT_SECONDS = Setting(
        FLOAT, 2.0, "How long an answer's response waits for the next question before the page asks again."
    )
    TRUTHING_AUTOMATIC_PARTS = Setting(
        INT, 2, "How many jobs share a test's automatic truthing, run side by side.", check=at_least(1)
    )
    TRUTHING_DEAL_EXPOSURE_STREAMS = Setting(
        INT,
        100,
        "A session's fresh oracle stream prefers the questions least told before, counted over this many "
        "of the latest streams dealt on the image.",
    )
    TRUTHING_DEALERS = Setting(
        INT,
        2,
        "How many dealer processes share one session's deal (its run and helpers on the deals queue: "
        "run as many dealer worker processes, DEALER_CONCURRENCY).",
        check=at_least(1),
    )
    AUDIT_TRAINING_STREAMS = Setting(
        INT,
        500,
        "The audit of a test trains its blind guesser on oracle streams of this many training images.",
    )


conf = TruthingSettings()
