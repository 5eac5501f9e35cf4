"""Issue 19 on the web: the test card's "A test that ranks vision", the leaderboard's "seeing minus
blind" column and accuracy by reference distance, and the reference table of a system's page. The
figures are hand-counted on the hand-built test (tests/evaluation/conftest.py: DEFAULT_STREAMS)."""

from __future__ import annotations

import re

import pytest

from accounts.roles import Role
from evaluation.services import degradation

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
    assert "0.364 on this test" in html  # the blind prior itself: 4 of 11
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


def test_a_curve_that_steps_up_says_how_often_a_right_p_would(client, scored_world, users, monkeypatch):
    """The card's "Always falls" cell: where a curve steps up, the chance a right p's would not; where
    it falls, nothing more. The report is the check's own, with one curve's chance set by hand."""
    test = scored_world["published"]
    monkeypatch.setattr(degradation, "job_enqueue", lambda job: None)
    degradation.ranking_checks_due_queue()
    check = degradation.RankingCheck.objects.get(test=test)
    degradation.ranking_check_run(job_id=check.pk)
    check.refresh_from_db()
    assert all(f["monotone"] and f["monotone_chance"] is None for f in check.report["families"].values())
    check.report["families"]["attributes"] |= {"monotone": False, "monotone_chance": 0.437}
    check.save(update_fields=["report"])

    client.force_login(users[Role.ADMIN])
    html = client.get(f"/tests/{test.pk}/").content.decode()
    rows = dict(re.findall(r'<tr data-family="(\w)">(.*?)</tr>', html, re.S))
    assert "no: the blind prior beats its p here" in rows["q"]
    assert re.search(
        r'data-figure="monotone-chance" title="Had every p been exactly right[^"]*">\(a right p falls here 44% of the time\)',
        rows["q"],
    )
    assert "monotone-chance" not in rows["x"] and "monotone-chance" not in rows["r"]
