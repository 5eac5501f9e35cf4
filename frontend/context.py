"""Template context shared by every page: the user's roles, for showing only what they may use."""

from accounts.roles import Role, may, roles_of

# The pages of the top bar that not every role may open, each shown only to the roles whose operation
# it leads to (a link that leads to a 403 is not shown: tests/frontend/test_navigation.py).
NAV_OPERATIONS = (
    ("truthing", "truthing.queue.next"),
    ("adjudication", "truthing.disagreement.list"),
    ("tests", "truthing.test.list"),
    ("operators", "truthing.operators.statistics"),
    ("systems", "evaluation.system.list"),
    ("leaderboards", "evaluation.leaderboard.read"),
)


def navigation(request):
    user = getattr(request, "user", None)
    roles = roles_of(user)
    return {
        "user_roles": sorted(roles),
        "is_admin_role": Role.ADMIN in roles,
        "nav": {name: may(user, operation) for name, operation in NAV_OPERATIONS},
    }
