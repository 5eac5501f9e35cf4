"""The engine core's tests (tests/engine/core) and the synthetic scene generator's run without Django:
`python -m pytest -p no:django tests/engine/core`. Everything Django-related is a plugin loaded only
when pytest-django is active. On pytest-xdist workers (`make test`), tests/parallel.py keeps the Django
tests' workers apart."""

import os

import pytest


def pytest_configure(config):
    if config.pluginmanager.hasplugin("django"):
        config.pluginmanager.import_plugin("tests.django_fixtures")
        config.pluginmanager.import_plugin("tests.storage_fixtures")
        config.pluginmanager.import_plugin("tests.parallel")
        config.pluginmanager.import_plugin("tests.template_db")
        config.pluginmanager.import_plugin("tests.fast_flush")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config, specs):
    """A thread a worker for OpenMP and OpenBLAS, unless told otherwise: their threads spin while they wait
    for one another, so they crawl beside a busy core. On this 2-core machine at a load of 4.6, the
    seeing baseline's fit (scikit-learn, tests/demo/test_baselines.py) took 174 s with its default
    threads and 29 s with one. No test checks anything that depends on how many threads computed it."""
    for spec in specs:
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            if name not in os.environ:
                spec.env[name] = "1"
