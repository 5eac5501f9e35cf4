"""Admins (staff members of the "admin" group, or superusers) hold every Django model permission.

This lets the admin role use the whole Django admin without a permission-syncing step after each
migration.
"""

from django.contrib.auth.backends import ModelBackend

from accounts.roles import Role, roles_of


class AdminRoleBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        return None  # only grants permissions; logging in is ModelBackend's job

    def has_perm(self, user_obj, perm, obj=None) -> bool:
        return self.has_module_perms(user_obj, "")

    def has_module_perms(self, user_obj, app_label) -> bool:
        if not (user_obj.is_active and user_obj.is_staff):
            return False
        # roles_of reads the user's groups once a request: the admin's index and every changelist ask
        # this for each model it lists (172 queries a page before, issue 51).
        return Role.ADMIN in roles_of(user_obj)
