"""Every model of the platform's apps is in the Django admin with list columns, search and filters."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from accounts.roles import Role

OUR_APPS = ["accounts", "annotations", "crowd", "engine", "truthing", "evaluation"]


def our_models():
    return [model for label in OUR_APPS for model in apps.get_app_config(label).get_models()]


@pytest.mark.parametrize("model", our_models(), ids=lambda m: m._meta.label)
def test_every_model_has_a_useful_admin(model):
    model_admin = admin.site._registry.get(model)
    assert model_admin is not None, f"{model._meta.label} is not registered in the admin"
    assert list(model_admin.list_display) != ["__str__"], "list_display shows more than the name"
    assert model_admin.search_fields, "the admin can search it"


@pytest.mark.django_db
@pytest.mark.parametrize("model", our_models(), ids=lambda m: m._meta.label)
def test_admin_pages_load_with_search_and_filters(model, client, make_user):
    client.force_login(make_user(Role.ADMIN))
    changelist = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    assert client.get(changelist).status_code == 200
    assert client.get(changelist, {"q": "anything"}).status_code == 200
