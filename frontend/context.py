"""Template context shared by every page: the user's roles, for showing only what they may use."""

from accounts.roles import Role, roles_of


def navigation(request):
    roles = roles_of(getattr(request, "user", None))
    return {"user_roles": sorted(roles), "is_admin_role": Role.ADMIN in roles}
