"""The collection page's model server section (decision 0078): a reviewer connects the collection to a
Label Studio ML backend, checks it and starts a pre-annotation from the page; the credential is never
on the page; an annotator sees no section and is refused; bad input is a message and changes nothing."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from annotations.models import ModelBackend, PreannotationJob
from annotations.suggestions.secrets import secret_open
from tests.factories import ImageFactory
from tests.fake_ml_backend import FakeMLBackend

pytestmark = pytest.mark.django_db

SECRET = "s3cret-value-never-shown"


def as_user(client, users, role):
    client.force_login(users[role])
    return client


def page_of(client, collection) -> str:
    return client.get(f"/collections/{collection.pk}/").content.decode()


def test_a_reviewer_connects_checks_and_pre_annotates_from_the_page(client, users, collection):
    reviewer = as_user(client, users, Role.REVIEWER)
    assert 'id="model-server"' in page_of(reviewer, collection)
    ImageFactory(collection=collection)
    with FakeMLBackend(seed=1) as fake:
        fake.require_basic("team", SECRET)
        form = {"url": fake.url, "auth": "basic", "username": "team", "secret": SECRET, "enabled": "on"}
        response = reviewer.post(f"/collections/{collection.pk}/model-server/", form, follow=True)
        assert "Model server saved" in response.content.decode()
        backend = ModelBackend.objects.get(collection=collection)
        assert backend.secret != SECRET and secret_open(backend.secret) == SECRET
        # Saved again with the credential left blank: the stored one is kept.
        reviewer.post(f"/collections/{collection.pk}/model-server/", form | {"secret": ""})
        assert secret_open(ModelBackend.objects.get(collection=collection).secret) == SECRET
        page = reviewer.post(
            f"/collections/{collection.pk}/model-server/check/", follow=True
        ).content.decode()
        assert "The model server answers: model fake-detector-1" in page
        assert SECRET not in page and "stored (never shown)" in page
        page = reviewer.post(f"/collections/{collection.pk}/model-server/preannotate/", follow=True)
        assert "Pre-annotation started" in page.content.decode()
        assert PreannotationJob.objects.filter(collection=collection).exists()
        assert 'data-testid="preannotation"' in page.content.decode()


def test_a_server_that_does_not_answer_is_said_on_the_page(client, users, collection):
    reviewer = as_user(client, users, Role.REVIEWER)
    reviewer.post(
        f"/collections/{collection.pk}/model-server/", {"url": "http://127.0.0.1:9/", "auth": "none"}
    )
    page = reviewer.post(f"/collections/{collection.pk}/model-server/check/", follow=True).content.decode()
    assert "The model server did not answer well: The model server could not be reached" in page


def test_bad_input_is_a_message_and_changes_nothing(client, users, collection):
    reviewer = as_user(client, users, Role.REVIEWER)
    response = reviewer.post(
        f"/collections/{collection.pk}/model-server/",
        {"url": "ftp://models.example/", "auth": "none"},
        follow=True,
    )
    assert response.status_code == 200 and "http" in response.content.decode()
    assert not ModelBackend.objects.exists()
    page = reviewer.post(f"/collections/{collection.pk}/model-server/check/", follow=True).content.decode()
    assert "connected to no model server" in page


def test_an_annotator_sees_no_section_and_is_refused(client, users, collection):
    annotator = as_user(client, users, Role.ANNOTATOR)
    assert 'id="model-server"' not in page_of(annotator, collection)
    form = {"url": "http://models.example/", "auth": "none"}
    assert annotator.post(f"/collections/{collection.pk}/model-server/", form).status_code == 403
    assert annotator.post(f"/collections/{collection.pk}/model-server/preannotate/").status_code == 403
    assert not ModelBackend.objects.exists()
