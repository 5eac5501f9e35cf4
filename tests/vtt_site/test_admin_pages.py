"""Every page of the Django admin opens for an admin: the add page of every registered model and the
change page of a row of each (issue 20: Tests -> Add was a 500 that no test opened).

The rows come from one small world built below; a model registered later without a row here fails
`test_every_registered_model_has_a_row`, so the walk cannot silently skip it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.contrib import admin
from django.core.files.base import ContentFile
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from annotations.models import Image
from tests.evaluation.conftest import build_test, take_test
from tests.factories import MembershipFactory

pytestmark = pytest.mark.django_db


def registered_models():
    return list(admin.site._registry)


def label(model) -> str:
    return model._meta.label


@pytest.fixture
def world(make_user, client):
    """At least one row of every model the admin shows, made through services where they exist."""
    from axes.models import AccessFailureLog

    from accounts.services import token_create
    from annotations.models import ObjectAnnotation, PreannotationJob, Prediction, RelationshipAnnotation
    from annotations.services.suggestions import model_backend_set
    from datasets.models import ImportJob
    from engine.models import FitShard
    from evaluation.models import RankingCheck, TestSchedule
    from evaluation.services.systems import system_create
    from truthing.models import (
        AutomaticTruthing,
        Check,
        CheckAnswer,
        Disagreement,
        Step,
        TestAudit,
        TestImage,
    )

    admin_user = make_user(Role.ADMIN, username="the-admin")
    token_create(user=admin_user, name="a token")
    test = build_test(name="admin walk")
    take_test(system_create(owner=make_user(Role.VISION_SYSTEM_OWNER), name="sys"), test)
    image = TestImage.objects.filter(test=test).first().image
    collection = image.collection
    MembershipFactory(collection=collection, user=make_user(Role.ANNOTATOR))
    vocabulary = collection.vocabulary
    person = vocabulary.types.first()
    boxes = [
        ObjectAnnotation.objects.create(image=image, position=i, object_type=person, x=1, y=1, w=5, h=5)
        for i in range(2)
    ]
    RelationshipAnnotation.objects.create(
        image=image, relationship=vocabulary.relationships.first(), subject=boxes[0], object=boxes[1]
    )
    ImportJob.objects.create(
        collection=collection,
        format="jsonl",
        file=ContentFile(b"{}\n", name="a.jsonl"),
        original_name="a.jsonl",
    )
    model_backend_set(
        collection=collection,
        user=admin_user,
        url="http://127.0.0.1:9/",
        auth="basic",
        username="u",
        secret="pw",
    )
    Prediction.objects.create(image=image, object_type=person, x=1, y=1, w=5, h=5, score=0.5)
    PreannotationJob.objects.create(collection=collection)
    FitShard.objects.create(statistics=test.statistics, index=0, first=0, last=1, file_name="shard-0.npz")
    step = Step.objects.filter(stream__test_image__test=test).first()
    check = Check.objects.create(stream=step.stream, kind="second")
    answer = CheckAnswer.objects.create(check_pass=check, step=step, answer="no")
    Disagreement.objects.create(step=step, check_answer=answer)
    AutomaticTruthing.objects.create(test=test)
    TestAudit.objects.create(test=test)
    TestSchedule.objects.create(test=test, deadline=timezone.now())
    RankingCheck.objects.create(test=test)
    _crowd_rows(collection, admin_user, make_user(Role.ANNOTATOR, username="crowd-member"))
    client.post(reverse("admin:login"), {"username": "nobody", "password": "wrong"})  # axes' rows
    AccessFailureLog.objects.create(user_agent="a browser", http_accept="*/*", path_info="/admin/login/")
    client.raise_request_exception = False  # a 500 is counted, not raised, so every page is tried
    client.force_login(admin_user)
    return client


def _crowd_rows(collection, reviewer, annotator) -> None:
    from crowd.models import (
        Copy,
        CopyState,
        CrowdPriors,
        GoldImage,
        GoldScore,
        ImageMerge,
        Pause,
        Reliability,
    )
    from crowd.services.settings import crowd_settings_update

    crowd_settings_update(collection=collection, values={"overlap": 2})
    image = Image.objects.filter(collection=collection).first()
    copy = Copy.objects.create(image=image, annotator=annotator, state=CopyState.SUBMITTED, gold=True)
    ImageMerge.objects.create(image=image, merged={"objects": [], "relationships": []}, box_f1=0.5)
    GoldImage.objects.create(image=image, answer={"objects": [], "relationships": []}, marked_by=reviewer)
    GoldScore.objects.create(copy=copy, box_f1=1.0, correct=1, total=1)
    Pause.objects.create(collection=collection, annotator=annotator, reason="below the gold threshold")
    CrowdPriors.objects.create(collection=collection, priors=[["box", "person", "person", 0.9]])
    Reliability.objects.create(
        collection=collection, annotator=annotator, sensitivity=0.9, specificity=0.8, n_items=60, enough=True
    )


def test_the_crowd_settings_admin_refuses_an_out_of_range_value(world):
    from annotations.models import Collection

    collection = Collection.objects.create(
        name="crowd admin", vocabulary=Collection.objects.first().vocabulary
    )
    form = {
        "collection": collection.pk,
        "overlap": 9,
        "iou_threshold": 0.5,
        "agreement_threshold": 0.8,
        "gold_rate": 0.05,
        "pause_threshold": 0.6,
        "min_gold": 5,
    }
    response = world.post(reverse("admin:crowd_crowdsettings_add"), form)
    assert response.status_code == 200 and "Out of range: overlap" in response.content.decode()
    response = world.post(reverse("admin:crowd_crowdsettings_add"), form | {"overlap": 3})
    assert response.status_code == 302


def test_every_add_and_change_page_opens(world):
    missing = [label(model) for model in registered_models() if not model._default_manager.exists()]
    assert not missing, f"make a row of these in the world fixture: {missing}"
    failures = []
    for model, model_admin in admin.site._registry.items():
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        pages = []  # the lists: tests/vtt_site/test_admin.py
        if model_admin.has_add_permission(_request(world)):
            pages.append(reverse(f"{prefix}_add"))
        row = model._default_manager.order_by("pk").first()
        if row is not None:
            pages.append(reverse(f"{prefix}_change", args=[row.pk]))
        for page in pages:
            status = world.get(page).status_code
            if status >= 500 or status == 404:
                failures.append(f"{page}: {status}")
    assert not failures, failures


def test_the_add_page_of_a_test_shows_the_engine_settings_and_their_defaults(world):
    page = world.get(reverse("admin:truthing_test_add")).content.decode()
    assert 'name="epsilon"' in page and 'value="0.15"' in page
    # The test images are offered (the two-pane picker is filled from the select's options).
    images = re.search(r'<select name="images".*?</select>', page, re.S).group(0)
    test_image = Image.objects.filter(split="test").first()
    assert f'value="{test_image.pk}"' in images and test_image.original_name in images
    assert "Default 60" in page  # max_questions


def _request(client):
    """A request of the logged-in admin, for the admin's own permission checks."""
    from django.contrib.auth import get_user_model
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = get_user_model().objects.get(username="the-admin")
    return request


def test_the_admin_adds_a_draft_test_through_the_lifecycle_service(world):
    from engine.models import FittedStatistics
    from truthing.models import Test

    image = Image.objects.filter(split="test").first()
    form = {"name": "added in the admin", "description": "", "seed": 3, "streams_per_image": 1}
    form |= {"statistics": FittedStatistics.objects.first().pk, "images": [image.pk], "max_questions": 12}
    response = world.post(reverse("admin:truthing_test_add"), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    test = Test.objects.get(name="added in the admin")
    assert test.state == "draft" and test.engine_settings["max_questions"] == 12
    assert list(test.test_images.values_list("image", flat=True)) == [image.pk]


def test_an_add_page_the_platform_alone_writes_says_so_not_that_the_role_forbids_it(world):
    """An admin who types the add address of a model only the platform writes (no Add button is shown)
    is told why, with the way to its rows."""
    refused = [
        (model, model_admin)
        for model, model_admin in admin.site._registry.items()
        if not model_admin.has_add_permission(_request(world))
        and model_admin.has_view_permission(_request(world))
    ]
    assert len(refused) >= 10  # streams, steps, checks, answers, scores, jobs...
    for model, _ in refused:
        meta = model._meta
        response = world.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_add"))
        body = response.content.decode()
        assert response.status_code == 403, meta.label
        assert "written by the platform, never added by hand" in body, meta.label
        assert "Your role does not allow this" not in body, meta.label
        assert reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist") in body, meta.label


def test_an_add_page_still_blames_the_role_of_staff_who_may_not_see_those_rows(world, make_user):
    """Staff without the permission to view streams are not told what streams are: their role is."""
    staff = make_user(Role.OPERATOR, username="staff-without-permissions")
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    world.force_login(staff)
    response = world.get(reverse("admin:truthing_stream_add"))
    assert response.status_code == 403
    assert b"Your role does not allow this" in response.content
    assert b"written by the platform" not in response.content


class _AddForm(HTMLParser):
    """The fields of an admin add page's form as a browser would send them untouched: each input's
    value, a checked box, a select's selected options (else its first real one for a required single
    select), a textarea's text, and every inline's management form."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, list[str]] = {}
        self.required: set[str] = set()
        self.first_option: dict[str, str] = {}
        self._select: tuple[str, bool, bool] | None = None  # name, multiple, required
        self._options: list[tuple[str, bool]] = []
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "button", "file"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            self.data.setdefault(name, []).append(
                a.get("value") or ("on" if a.get("type") == "checkbox" else "")
            )
            if "required" in a:
                self.required.add(name)
        elif tag == "select" and name:
            self._select, self._options = (name, "multiple" in a, "required" in a), []
        elif tag == "option" and self._select is not None:
            self._options.append((a.get("value") or "", "selected" in a))
        elif tag == "textarea" and name:
            self._textarea = name
            self.data[name] = [""]
            if "required" in a:
                self.required.add(name)

    def handle_data(self, data):
        if self._textarea is not None:
            self.data[self._textarea][0] += data

    def handle_endtag(self, tag):
        if tag == "textarea":
            self._textarea = None
        elif tag == "select" and self._select is not None:
            name, multiple, required = self._select
            chosen = [value for value, selected in self._options if selected and value]
            self.first_option[name] = next((value for value, _ in self._options if value), "")
            self.data[name] = chosen if (chosen or multiple) else [""]
            if required:
                self.required.add(name)
            self._select = None


# What a person types on an add page where the untouched form is not enough: a value the model wants
# unique or of a shape (a password twice, a date). Every other required field is filled by `_filled`.
TYPED: dict[str, dict[str, str]] = {
    # A vocabulary needs a type, and a group its values: one row of the inline each.
    "annotations.Vocabulary": {"types-TOTAL_FORMS": "1", "types-0-name": "walker", "types-0-position": "0"},
    "annotations.AttributeGroup": {
        "values-TOTAL_FORMS": "1",
        "values-0-name": "tall",
        "values-0-position": "0",
    },
    "auth.User": {
        "username": "added-user",
        "password1": "a long pass phrase 93",
        "password2": "a long pass phrase 93",
    },
    "evaluation.TestSchedule": {"deadline_0": "2030-01-01", "deadline_1": "12:00:00"},
    # A model server's address must be an http(s) URL (a collection has at most one: the newest has none).
    "annotations.ModelBackend": {"address": "http://127.0.0.1:9/"},
    "truthing.Test": {"max_questions": "12"},
}


def _filled(form: _AddForm, model, typed: dict[str, dict[str, str]]) -> dict[str, list[str]]:
    data = {name: list(values) for name, values in form.data.items()}
    for name in form.required:
        if not any(data.get(name, [])):
            data[name] = [_typed_in(model, name, form.first_option.get(name, ""))]
    for name, value in typed.get(model._meta.label, {}).items():
        data[name] = [value]
    return data


def _typed_in(model, name: str, first_option: str) -> str:
    """A required field left empty, as a person fills it: for a relation, the row the walk added last
    (a new vocabulary's type, say, since a vocabulary in use refuses new rows; an autocomplete field
    lists no choices until one types); for other choices the first; else a name."""
    field = next((f for f in model._meta.get_fields() if getattr(f, "name", None) == name), None)
    if field is not None and field.is_relation:
        return str(field.related_model._default_manager.order_by("-pk").first().pk)
    return first_option or f"added {model._meta.model_name}"


def test_every_add_page_the_admin_offers_saves(world, trained_collection):
    """The admin offers no add page that cannot be saved (issue 38: saving the session's and the score's
    add pages was a 500). Each is filled as a person would, untouched but for its required fields, and
    posted: a new row, and a redirect, never a 500 or the form again."""
    # A fit's collection is one with reviewed training images.
    typed = TYPED | {"engine.FittedStatistics": {"collections": str(trained_collection.pk)}}
    failures = []
    for model, model_admin in admin.site._registry.items():
        if not model_admin.has_add_permission(_request(world)):
            continue
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")
        form = _AddForm()
        form.feed(world.get(url).content.decode())
        before = model._default_manager.count()
        response = world.post(url, _filled(form, model, typed))
        if response.status_code != 302 or model._default_manager.count() != before + 1:
            if response.status_code == 302:  # refused with a message, on the page it leads back to
                response = world.get(response["Location"])
            body = response.content.decode()
            errors = re.findall(r'<ul class="(?:errorlist|messagelist)[^"]*"[^>]*>(.*?)</ul>', body, re.S)
            failures.append(f"{model._meta.label}: {response.status_code} {errors[:3]}")
    assert not failures, "\n".join(failures)
