"""`manage.py demo_setup`: users with passwords kept outside the repository, a populated collection, and
a second run that finds everything in place."""

from __future__ import annotations

import json
import stat

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.test import RequestFactory

from annotations.models import Collection, Image, ObjectAnnotation, Split, Stage
from demo import checks as demo_checks
from demo import services as demo
from engine.models import FitStatus, FittedStatistics
from truthing.models import Test, TestState, TruthingMode

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def small_demo(monkeypatch, settings, tmp_path):
    """The real command with fewer images, so the test stays fast."""
    monkeypatch.setattr(demo, "TRAIN", 6)
    monkeypatch.setattr(demo, "TEST", 2)
    monkeypatch.setattr(demo, "WAITING", 3)
    monkeypatch.setattr(demo, "GRAPHS_ONLY", 5)
    settings.VAR_DIR = tmp_path / "var"
    # Six training images are far below the default minimum population: without these its tests would
    # have no question, and a test with no question is not published.
    settings.ENGINE_MIN_POPULATION = 5
    settings.ENGINE_MIN_EVIDENCE = 0.0
    return settings.VAR_DIR / "demo-credentials.json"


def test_demo_setup_loads_the_demo_and_a_second_run_changes_nothing(
    small_demo, capsys, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):  # the fit runs after its transaction commits
        call_command("demo_setup", url="http://demo.example/", baselines=False)
    first = capsys.readouterr().out
    credentials = json.loads(small_demo.read_text())
    assert set(credentials) == {"annotator", "reviewer", "operator", "operator-2", "vision-owner", "admin"}
    assert stat.S_IMODE(small_demo.stat().st_mode) == 0o600
    assert "http://demo.example/" in first
    for username, password in credentials.items():
        assert f"{username}" in first and password in first
        assert authenticate(RequestFactory().post("/login/"), username=username, password=password)

    collection = Collection.objects.get(name=demo.COLLECTION_NAME)
    images = collection.images
    assert images.filter(stage=Stage.ACCEPTED, split=Split.TRAIN).count() == 6 + 5
    assert images.filter(stage=Stage.ACCEPTED, split=Split.TEST).count() == 2
    waiting = images.filter(stage=Stage.ANNOTATE, split=Split.TRAIN)
    assert waiting.count() == 3
    assert not ObjectAnnotation.objects.filter(image__in=waiting).exists()
    rendered = images.exclude(original_name__startswith="demo-graph")
    assert all(image.file and image.format == "PNG" for image in rendered)
    assert images.filter(original_name__startswith="demo-graph", file="").count() == 5
    statistics = FittedStatistics.objects.get()
    assert statistics.status == FitStatus.READY and statistics.n_images == 11
    assert ObjectAnnotation.objects.filter(image__collection=collection).exists()
    assert set(collection.memberships.values_list("user__username", flat=True)) == {
        "annotator",
        "reviewer",
        "operator",
        "operator-2",
        "admin",
    }

    # Here the fit ran when the first command's transaction committed, after the command: the tests
    # come with the next run (with `make run` the fit is done before the command goes on).
    assert "once the statistics are fitted" in first
    with django_capture_on_commit_callbacks(execute=True):
        call_command("demo_setup", baselines=False)
    second = capsys.readouterr().out
    # The two demo tests: one published by the oracle, one waiting for the operator on test images
    # that nobody annotated (rendered, with pixels).
    published = Test.objects.get(name=demo.AUTOMATIC_TEST)
    assert published.state == TestState.PUBLISHED
    assert {ti.mode for ti in published.test_images.all()} == {TruthingMode.AUTOMATIC}
    assert published.test_images.count() == 2  # every reviewed test image, up to AUTOMATIC_IMAGES
    truthing = Test.objects.get(name=demo.OPERATOR_TEST)
    assert truthing.state == TestState.TRUTHING
    blind = [ti.image for ti in truthing.test_images.select_related("image")]
    assert len(blind) == demo.BLIND_IMAGES and all(i.file and i.split == Split.TEST for i in blind)
    assert {ti.mode for ti in truthing.test_images.all()} == {TruthingMode.OPERATOR}
    assert f"/tests/{published.pk}/" in second
    # The practice test: published as one, on rendered test images of its own that the oracle truthed,
    # none of them in the scored test (decision 0075).
    practice = Test.objects.get(name=demo.PRACTICE_TEST)
    assert (practice.state, practice.practice, published.practice) == (TestState.PUBLISHED, True, False)
    practised = {ti.image_id for ti in practice.test_images.all()}
    assert len(practised) == demo.PRACTICE_IMAGES
    assert not practised & {ti.image_id for ti in published.test_images.all()}
    assert {ti.mode for ti in practice.test_images.all()} == {TruthingMode.AUTOMATIC}
    assert f"test_id {practice.pk}" in second

    ids = set(Image.objects.values_list("pk", flat=True))
    call_command("demo_setup", baselines=False)
    third = capsys.readouterr().out
    assert json.loads(small_demo.read_text()) == credentials
    assert set(Image.objects.values_list("pk", flat=True)) == ids
    assert FittedStatistics.objects.count() == 1  # the training set did not change: no new fit
    assert Test.objects.count() == 4
    for password in credentials.values():
        assert password in third


@pytest.mark.django_db(transaction=True)
def test_demo_setup_runs_the_blind_baselines_so_the_first_leaderboard_has_rows(small_demo, capsys):
    """Issue 20: after `make run` the leaderboard was empty until `manage.py run_baselines`."""
    from evaluation.selectors.leaderboard import leaderboard

    call_command("demo_setup", url="http://demo.example/")
    out = capsys.readouterr().out
    published = Test.objects.get(name=demo.AUTOMATIC_TEST)
    assert f"http://demo.example/leaderboards/{published.pk}/" in out
    rows = leaderboard(test_id=published.pk)["rows"]
    assert sorted(row["system"]["baseline"] for row in rows) == ["always-yes", "blind-prior", "random"]
    # `make run` has no beat: the demo checks its published test itself, so the card shows the curves.
    from evaluation.models import RankingCheck

    check = RankingCheck.objects.get(test=published)
    assert f"Ranking check of {published.name!r}: {check.status}" in out
    assert "httpx" not in out
    call_command("demo_setup")
    assert out.count("accuracy") == 3 and "took this test already" in capsys.readouterr().out


def test_the_start_message_asks_to_truth_the_operator_test_only_while_it_needs_it(
    small_demo, capsys, django_capture_on_commit_callbacks
):
    """Issue 46, item 11: after the operator test was published, `make run` still said at every start
    to log in as operator and truth it."""
    for _ in range(2):  # the first run fits the statistics; the second makes the tests
        with django_capture_on_commit_callbacks(execute=True):
            call_command("demo_setup", url="http://demo.example/", baselines=False)
    assert "Take next" in capsys.readouterr().out
    operator_test = Test.objects.get(name=demo.OPERATOR_TEST)
    # As if the operator had truthed it and an admin published it (the state is all the message reads).
    Test.objects.filter(pk=operator_test.pk).update(state=TestState.PUBLISHED)

    call_command("demo_setup", url="http://demo.example/", baselines=False)
    out = capsys.readouterr().out
    assert "Take next" not in out and "log in as operator" not in out
    assert (
        f"{demo.OPERATOR_TEST!r} (published: its card is at http://demo.example/tests/{operator_test.pk}/)"
        in out
    )


def test_the_demo_leaves_a_stream_to_check_a_gold_check_and_a_disagreement(
    small_demo, capsys, client, django_capture_on_commit_callbacks
):
    """Issue 46, item 9: the demo never offered a check, so the Operators page said "no data" for
    agreement and gold and Adjudication had nothing to show. Now a newcomer finds each truthing page
    doing what it is for."""
    from django.contrib.auth import get_user_model

    from truthing.models import Check, CheckAnswer, CheckKind, Disagreement, Step
    from truthing.selectors import disagreement_list
    from truthing.services.queue import operator_next

    for _ in range(2):  # the first run fits the statistics; the second makes the tests
        with django_capture_on_commit_callbacks(execute=True):
            call_command("demo_setup", url="http://demo.example/", baselines=False)
    out = capsys.readouterr().out
    checked = Test.objects.get(name=demo_checks.CHECKED_TEST)
    assert checked.state == TestState.TRUTHING
    assert f"{checked.name!r} is being checked" in out

    open_checks = Check.objects.filter(stream__test_image__test=checked, finished_at__isnull=True)
    assert sorted(open_checks.values_list("kind", flat=True)) == sorted(
        [CheckKind.GOLD, CheckKind.SECOND_OPINION]
    )
    assert disagreement_list().filter(step__stream__test_image__test=checked).count() == 1
    users = {user.username: user for user in get_user_model().objects.all()}
    # The Operators page has figures for both: operator-2's streams were checked, and it answered gold.
    client.force_login(users["admin"])
    page = client.get("/truthing/operators/").content.decode()
    row = page[page.index('data-operator="operator-2"') :].split("</tr>", 1)[0]
    assert row.count(" of ") == 2 and "no data" not in row, row
    # Adjudication shows the disagreement to the reviewer.
    client.force_login(users["reviewer"])
    assert 'data-testid="disagreement-' in client.get("/truthing/disagreements/").content.decode()

    counts = (
        Check.objects.count(),
        CheckAnswer.objects.count(),
        Disagreement.objects.count(),
        Step.objects.count(),
    )
    call_command("demo_setup", baselines=False)
    assert (
        Check.objects.count(),
        CheckAnswer.objects.count(),
        Disagreement.objects.count(),
        Step.objects.count(),
    ) == counts
    # The newcomer operator's first work is a check, before any stream.
    assert isinstance(operator_next(user=users["operator"]), Check)
