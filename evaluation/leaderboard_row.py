"""The leaderboard's row, written once: each column's key, how its value is read off a scored session,
its shape in the API and how the page shows it. The selector builds each row from COLUMNS
(evaluation.selectors.leaderboard), the API's LeaderboardRowSerializer is made of their shapes, and the
page's table shows the columns that have headings, each through its cell template
(frontend/templates/frontend/leaderboard_cells/). docs/recipes.md: "Add a field to the leaderboard row"."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from evaluation.conf import conf
from evaluation.shapes import (
    ComparisonSerializer,
    ForecastScoresSerializer,
    MeanSerializer,
    PositionBinSerializer,
    ProportionSerializer,
    ReferenceSerializer,
    RowSystemSerializer,
    SeeingSerializer,
)
from scoring.scores import Tally, compare_sessions, positions_binned, positions_unbinned
from scoring.simulation import blind_answers, seeing_minus_blind
from scoring.stats import proportion
from truthing.published import TAKEABLE

if TYPE_CHECKING:
    from evaluation.models import Score, VisionSystem
    from truthing.published import TestPlan


@dataclass(frozen=True)
class RowFacts:
    """What a row's values are read from: one scored session, ranked, on a test that is not open."""

    rank: int
    score: Score
    test: Any  # the frozen test (truthing.published.frozen_test_get)
    plan: TestPlan  # the session's own plan: its dealt streams
    answers: dict[int, bool]  # plan ordinal -> whether the answer was right
    tally: Tally
    below: Tally | None  # the next row down's, None on the last row


@dataclass(frozen=True)
class Column:
    key: str
    value: Callable[[RowFacts], Any]
    shape: Callable[[], serializers.Field]  # a new field of the API's row serializer
    # The page's table headings for it, one <td> of its cell each; none: in the API only.
    headings: tuple[str, ...] = ()
    cell: str = "plain"  # frontend/templates/frontend/leaderboard_cells/<cell>.html, given `value`


def system_summary(system: VisionSystem) -> dict[str, Any]:
    return {
        "id": system.pk,
        "name": system.name,
        "description": system.description,
        "owner": system.owner.username,
        "url": system.url,
        "public": system.public,
        "baseline": system.baseline,
        "shown": system.shown,
    }


def positions_pooled_under(state: str) -> int | None:
    """How many streams and answers a bin of positions pools at least while a test in `state` can be
    taken (EVALUATION_POSITION_MIN); None once it cannot, when each position is shown alone."""
    return conf.EVALUATION_POSITION_MIN if state in TAKEABLE else None


def positions_shown(test: Any, by_position: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Accuracy by position: in bins of at least EVALUATION_POSITION_MIN streams and answers while the
    test can be taken (at a position few streams reach, the always-yes row's accuracy is the share of
    yes truths of those streams), position by position once it is archived (decision
    0050-position-bins)."""
    minimum = positions_pooled_under(test.state)
    if minimum is not None:
        return positions_binned(by_position, minimum)
    return positions_unbinned(by_position)


def blind_prior_on(plan: TestPlan) -> dict[str, Any]:
    """The blind prior's accuracy (yes exactly when the engine's p > 0.5) on a plan's questions: a
    session's own (every session is dealt streams of its own, so each row has its own yardstick), or
    the test's own streams."""
    right = blind_answers(plan)
    return proportion(sum(right.values()), len(right))


def _vs_next(facts: RowFacts) -> dict[str, Any] | None:
    return compare_sessions(facts.tally, facts.below) if facts.below else None


COLUMNS: tuple[Column, ...] = (
    Column("rank", lambda f: f.rank, serializers.IntegerField, headings=("#",)),
    Column(
        "system",
        lambda f: system_summary(f.score.session.system),
        RowSystemSerializer,
        headings=("System",),
        cell="system",
    ),
    Column("session", lambda f: f.score.session_id, serializers.IntegerField),
    Column("state", lambda f: f.score.session.state, serializers.CharField),
    Column(
        "accuracy",
        lambda f: f.score.data["accuracy"],
        ProportionSerializer,
        headings=("Accuracy", "95% interval", "Questions"),
        cell="accuracy",
    ),
    Column(
        "by_kind",
        lambda f: f.score.data["by_kind"],
        lambda: serializers.DictField(child=ProportionSerializer()),
    ),
    Column(
        "by_position",
        lambda f: positions_shown(f.test, f.score.data["by_position"]),
        lambda: PositionBinSerializer(
            many=True,
            help_text="Accuracy at each position in a stream (0-based): while the test can be taken, the "
            "accuracy of the bin the position is pooled in (first to last).",
        ),
    ),
    Column(
        "first_mistake",
        lambda f: f.score.data["first_mistake"],
        MeanSerializer,
        headings=("First mistake (mean position)",),
        cell="first_mistake",
    ),
    # A score of an older SCORING_VERSION has none until the beat recomputes it.
    Column(
        "by_reference",
        lambda f: f.score.data.get("by_reference", []),
        lambda: ReferenceSerializer(many=True),
    ),
    Column(
        "blind_prior",
        lambda f: blind_prior_on(f.plan),
        lambda: ProportionSerializer(
            help_text="The blind prior's accuracy (yes when the engine's p > 0.5) on this session's own "
            "questions: the yardstick of its seeing_minus_blind. Each session is dealt streams of its "
            "own, so it differs from row to row and from the test's blind_prior."
        ),
        headings=("Blind prior on its questions",),
        cell="blind_prior",
    ),
    Column(
        "seeing_minus_blind",
        lambda f: seeing_minus_blind(f.plan, f.answers),
        lambda: SeeingSerializer(
            allow_null=True,
            help_text="Accuracy minus the blind prior's (yes when the engine's p > 0.5) on the same "
            "questions: accuracy minus blind_prior.",
        ),
        headings=("Seeing minus blind",),
        cell="seeing_minus_blind",
    ),
    # A score of an older SCORING_VERSION has none until the beat recomputes it; none without p_yes.
    Column(
        "forecasts",
        lambda f: f.score.data.get("forecasts"),
        lambda: ForecastScoresSerializer(
            allow_null=True, help_text="The scores of the probabilities given (p_yes); null: none given."
        ),
        headings=("Probabilities: Brier score",),
        cell="forecasts",
    ),
    Column(
        "vs_next",
        _vs_next,
        lambda: ComparisonSerializer(allow_null=True, help_text="This row against the next one down."),
        headings=("vs next: p",),
        cell="vs_next",
    ),
)


# COLUMNS is read when a row is made, serialized or shown, never copied at import: the columns are
# in one place for the code as for a test that adds one.


def row_of(facts: RowFacts) -> dict[str, Any]:
    return {column.key: column.value(facts) for column in COLUMNS}


def shown_columns() -> list[Column]:
    """The columns the page's table shows, in order."""
    return [column for column in COLUMNS if column.headings]
