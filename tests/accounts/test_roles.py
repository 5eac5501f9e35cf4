from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from accounts.roles import OPERATIONS, Role, may, roles_of

pytestmark = pytest.mark.django_db


def test_a_migration_creates_one_group_per_role():
    assert set(Group.objects.values_list("name", flat=True)) >= {role.value for role in Role}


@pytest.mark.django_db(transaction=True)
def test_a_flush_leaves_one_group_per_role():
    """A flush (`manage.py flush`, every transactional test's teardown) empties auth_group; the groups
    come back with post_migrate. Without, the tests after a transactional one on a worker found none."""
    from django.core.management import call_command

    call_command("flush", verbosity=0, interactive=False)
    assert set(Group.objects.values_list("name", flat=True)) == {role.value for role in Role}


def test_admins_may_do_everything(make_user):
    admin_user = make_user(Role.ADMIN)
    assert admin_user.is_staff
    assert roles_of(admin_user) == {Role.ADMIN}
    assert all(may(admin_user, operation) for operation in OPERATIONS)
    assert roles_of(make_user(None, is_superuser=True)) == {Role.ADMIN}


def test_staff_flag_alone_is_not_the_admin_role(make_user):
    assert roles_of(make_user(Role.ANNOTATOR, is_staff=True)) == {Role.ANNOTATOR}


def test_an_inactive_user_has_no_role(make_user):
    user = make_user(Role.ANNOTATOR, is_active=False)
    assert roles_of(user) == frozenset()


def test_an_unknown_operation_is_a_programming_error(make_user):
    with pytest.raises(LookupError):
        may(make_user(Role.ANNOTATOR), "no.such.operation")


def test_admin_role_members_may_use_the_django_admin(client, make_user):
    admin_user = make_user(Role.ADMIN)
    client.force_login(admin_user)
    assert client.get("/admin/auth/user/").status_code == 200
    annotator = make_user(Role.ANNOTATOR, is_staff=True)  # staff without the admin group: no model rights
    client.force_login(annotator)
    assert client.get("/admin/auth/user/").status_code == 403
