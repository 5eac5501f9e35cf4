"""Issue 19 on the web: the test card's "A test that ranks vision", the leaderboard's "seeing minus
blind" column and accuracy by reference distance, and the reference table of a system's page. The
figures are hand-counted on the hand-built test (tests/evaluation/conftest.py: DEFAULT_STREAMS)."""

from __future__ import annotations

import re

import pytest

from accounts.roles import Role
from evaluation.services import degradation
from scoring.degradation import curve_verdict

pytestmark = pytest.mark.django_db


def test_the_leaderboard_reads_seeing_minus_blind_and_plots_accuracy_by_reference(
    client, scored_world, users
):
    client.force_login(users[Role.ANNOTATOR])
    html = client.get(f"/leaderboards/{scored_world['published'].pk}/").content.decode()
    assert "<th>Seeing minus blind</th>" in html
    # Always yes is right on 7 of the 11 questions, the blind prior (p > 0.5) on 4: (7 - 4) / 11.
    cells = re.findall(r'<td data-figure="seeing-minus-blind">([-0-9.]+) ', html)
    assert cells and set(cells) == {"0.273"}
    # The blind prior itself, 4 of 11: on each row's questions (every session here was dealt the
    # same) and on the test's own streams.
    assert set(re.findall(r'<td data-figure="blind-prior"[^>]*>([0-9.]+) ', html)) == {"0.364"}
    assert re.search(r'data-figure="blind-prior-test">0\.364 .* on 11 questions', html)
    assert 'data-testid="plot-reference"' in html and 'aria-label="Accuracy by reference distance"' in html


def test_a_systems_page_shows_accuracy_by_reference_distance_with_intervals(client, scored_world, users):
    client.force_login(users[Role.ANNOTATOR])
    html = client.get(f"/systems/{scored_world['alpha'].pk}/").content.decode()
    table = re.search(r'data-testid="reference-table">(.*?)</table>', html, re.S)
    assert table is not None
    # attr "no" one step after person 1 (wrong), attr "yes" one step after (right); the relationship
    # names person 1, made three steps before it (right).
    rows = re.findall(r"<tr><td>([^<]+)</td><td>(\d+%)", table.group(1))
    assert rows == [("1", "50%"), ("3", "100%")]
    assert "of 2</span>" in table.group(1)  # the interval and its count


def test_the_card_shows_the_ranking_check_once_it_has_run(client, scored_world, users, monkeypatch):
    test = scored_world["published"]
    client.force_login(users[Role.ADMIN])
    before = client.get(f"/tests/{test.pk}/").content.decode()
    assert 'data-testid="ranking"' in before and "Not checked yet" in before

    monkeypatch.setattr(degradation, "job_enqueue", lambda job: None)
    degradation.ranking_checks_due_queue()
    for check in degradation.RankingCheck.objects.all():
        degradation.ranking_check_run(job_id=check.pk)

    html = client.get(f"/tests/{test.pk}/").content.decode()
    section = re.search(r'data-testid="ranking"(.*?)</section>', html, re.S).group(1)
    assert re.search(r'data-figure="ranking-oracle">100% ', section)
    assert re.search(r'data-figure="ranking-blind">36% ', section)  # 4 of 11
    assert "not audited yet" in section
    assert re.search(r'data-figure="seeing-minus-blind">0\.636 ', section)  # 1.0 - 4/11
    # Eleven questions cannot hold two simulated systems 0.05 apart: no figure, and the card says why.
    assert re.search(r'data-figure="streams-needed">\u2013 .*too small', section)
    assert 'aria-label="Accuracy against degradation"' in section
    assert section.count("<tr data-family=") == 3


def test_each_curve_shows_its_verdict_by_the_ruling(client, scored_world, users, monkeypatch):
    """The card's "Verdict" cell and "Ranks vision" line (issue 34's second ruling): a curve that falls
    says so; one whose step up a right p shows 1% of the time does not rank vision, in bold, with how
    often a right p falls there. The report is the check's own, with one curve's verdict set by hand
    as `scoring.degradation.curve_verdict` words it."""
    test = scored_world["published"]
    monkeypatch.setattr(degradation, "job_enqueue", lambda job: None)
    degradation.ranking_checks_due_queue()
    check = degradation.RankingCheck.objects.get(test=test)
    degradation.ranking_check_run(job_id=check.pk)
    check.refresh_from_db()
    assert all(f["monotone"] and f["monotone_chance"] is None for f in check.report["families"].values())
    assert check.report["ranks_vision"] is True
    client.force_login(users[Role.ADMIN])
    html = client.get(f"/tests/{test.pk}/").content.decode()
    assert re.search(r'data-figure="ranks-vision">yes ', html)

    check.report["families"]["attributes"] |= {
        "monotone": False,
        "monotone_chance": 0.99,
        "verdict": curve_verdict(
            [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.2], {"low": 0.1, "high": 0.3}, [0.01] * 10
        ),
    }
    check.report["ranks_vision"] = False
    check.save(update_fields=["report"])
    html = client.get(f"/tests/{test.pk}/").content.decode()
    rows = dict(re.findall(r'<tr data-family="(\w)">(.*?)</tr>', html, re.S))
    assert (
        "<strong>Does not rank vision: a step up that chance explains only p = 0.010 of the time</strong>"
        in rows["q"]
    )
    assert "the curve would fall at every step on these questions 99% of the time" in rows["q"]
    assert ">Falls at every step<" in rows["x"] and "would fall at every step" not in rows["x"]
    assert re.search(r'data-figure="ranks-vision"><strong>no</strong>', html)
