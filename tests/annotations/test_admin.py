"""The admin pages of the annotation app that go beyond the generic checks of tests/vtt_site."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.roles import Role
from annotations.services.images import image_upload
from tests.annotations.images import image_bytes, upload

pytestmark = pytest.mark.django_db


def test_an_image_page_links_its_pixels_through_the_authenticated_view(client, users, collection):
    image = image_upload(collection=collection, files=[upload("a.png", image_bytes())]).created[0]
    client.force_login(users[Role.ADMIN])
    page = client.get(reverse("admin:annotations_image_change", args=[image.pk])).content.decode()
    assert f"/api/v1/images/{image.pk}/file/" in page
    assert "/media/" not in page


@pytest.mark.parametrize(
    ("model", "listed"),
    [
        ("objecttype", "vehicle"),
        ("attributegroup", "visible tires"),
        ("attributevalue", "more than two"),
        ("relationshiptype", "walking together"),
    ],
)
def test_vocabulary_parts_cannot_be_deleted_in_bulk(client, users, collection, model, listed):
    client.force_login(users[Role.ADMIN])
    page = client.get(reverse(f"admin:annotations_{model}_changelist")).content.decode()
    assert listed in page
    assert "delete_selected" not in page
