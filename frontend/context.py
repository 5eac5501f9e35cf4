"""Template context shared by every page: the user's roles, for showing only what they may use."""

from accounts.roles import Role, may, roles_of

# The truthing pages in the top bar, each shown to the roles whose operation it leads to.
TRUTHING_NAV = (
    ("truthing", "truthing.queue.next"),
    ("adjudication", "truthing.disagreement.list"),
    ("tests", "truthing.test.list"),
    ("operators", "truthing.operators.statistics"),
)


def navigation(request):
    user = getattr(request, "user", None)
    roles = roles_of(user)
    return {
        "user_roles": sorted(roles),
        "is_admin_role": Role.ADMIN in roles,
        "nav": {name: may(user, operation) for name, operation in TRUTHING_NAV},
    }
