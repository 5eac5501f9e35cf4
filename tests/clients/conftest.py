from tests.evaluation.conftest import owner, system, system_token  # noqa: F401  (shared fixtures)
