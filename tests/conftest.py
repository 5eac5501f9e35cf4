"""The engine core's tests (tests/engine/core) and the synthetic scene generator's run without Django:
`python -m pytest -p no:django tests/engine/core`. Everything Django-related is a plugin loaded only
when pytest-django is active."""


def pytest_configure(config):
    if config.pluginmanager.hasplugin("django"):
        config.pluginmanager.import_plugin("tests.django_fixtures")
        config.pluginmanager.import_plugin("tests.parallel")
