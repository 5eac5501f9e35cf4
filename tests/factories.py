"""factory_boy factories shared by the tests."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from accounts.roles import Role

PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    """`UserFactory(role=Role.ANNOTATOR)`: a user in that role's group (admins are also staff)."""

    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password(PASSWORD)

    @classmethod
    def _create(cls, model_class, *args, role: Role | None = None, **kwargs):
        if role == Role.ADMIN:
            kwargs["is_staff"] = True
        user = super()._create(model_class, *args, **kwargs)
        if role is not None:
            user.groups.add(Group.objects.get(name=role.value))
        return user
