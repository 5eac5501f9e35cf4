"""The Django tests on pytest-xdist workers (`make test`: `-n 2 --dist loadgroup`; decision 0054).

Each worker has a test database of its own (pytest-django's `test_…_gw0`, `test_…_gw1`), a Redis database
of its own (`pytest_xdist_setupnodes`), and the tests that must not run beside one another are in one
xdist group (`ONE_AT_A_TIME`, and `ONE_SERVED_AT_A_TIME` for those that serve the platform), which
`--dist loadgroup` runs on one worker, one test after another.
Loaded by tests/conftest.py with pytest-django; run without `-n`, the suite is as before.
"""

from __future__ import annotations

from collections import Counter
from urllib.parse import urlsplit, urlunsplit

import pytest

# The tests that start processes (Celery workers, a private Redis) or kill them, and those that measure
# time against a budget: beside one another they would slow each other down. Every test marked
# `integration` is in the group without being marked, unless it is in the next one.
ONE_AT_A_TIME = pytest.mark.xdist_group("one_at_a_time")
# The tests that start the served platform (`make serve`, gunicorn): one at a time too, but beside the
# group above (decision 0084). The two never meet: each xdist worker has its own database and Redis
# database, and each served platform its own port and folder; they share only the CPU, which they mostly
# leave idle while they wait on their processes (the two groups were 494 s one after another).
ONE_SERVED_AT_A_TIME = pytest.mark.xdist_group("served")


def redis_url_of_worker(url: str, index: int) -> str:
    """`url` with its database number moved on by `index`: worker 1 of redis://h:6379/8 uses
    redis://h:6379/9."""
    parts = urlsplit(url)
    if "db=" in parts.query:
        raise pytest.UsageError(f"REDIS_URL names its database in its query ({url}): name it in the path")
    database = int(parts.path.strip("/") or 0) + index
    return urlunsplit(parts._replace(path=f"/{database}"))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config, specs):
    """On the controller, before the workers start: each worker gets a Redis database of its own,
    REDIS_URL's plus the worker's index (gw0 keeps it). The unit tests clear the cache after each test and
    the integration tests use the broker and forget their keys: two workers on one database would wipe
    each other's state. Set in the worker's environment, so that its settings, and the processes its
    tests start, read it. (A worker started again after a crash takes its spec, and so its database.)"""
    from django.conf import settings

    if settings.REDIS_URL:
        for index, spec in enumerate(specs):
            spec.env["REDIS_URL"] = redis_url_of_worker(settings.REDIS_URL, index)


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("integration") and not item.get_closest_marker("xdist_group"):
            item.add_marker(ONE_AT_A_TIME)
    result = yield  # xdist's own hook writes the groups into the tests' ids (before pytest 9.2)
    if getattr(config.option, "loadgroup", False):  # set on xdist's workers under --dist loadgroup
        _name_schemathesis_cases(items)
        _group_into_ids(items)
        _longest_first(items)
        duplicates = [nodeid for nodeid, n in Counter(item.nodeid for item in items).items() if n > 1]
        if duplicates:  # xdist's scheduler keys the tests by id: it would run one test of each id
            raise pytest.UsageError(f"Tests share an id, --dist loadgroup would skip them: {duplicates}")
    return result


def _name_schemathesis_cases(items) -> None:
    """Schemathesis names each operation's test `test_…[GET /path]`, but pytest 9.2 builds a test's id
    from its function and parameters only, so every operation's test has the function's id."""
    for item in items:
        node_id = getattr(item, "_id", None)  # before pytest 9.2: the name was the id
        params = item.name.removeprefix(getattr(item, "originalname", ""))
        if node_id is not None and node_id.params is None and params[:1] == "[" and params[-1:] == "]":
            item._id = node_id.with_params(params[1:-1])


def _group_into_ids(items) -> None:
    """xdist's loadgroup reads a test's group from its id, `…@group`, which its own hook writes to the
    `_nodeid` that pytest 9.2 no longer reads (pytest-xdist issue 1386): the groups would be ignored. Does
    nothing once xdist's hook works."""
    from _pytest.nodeid import NodeId

    for item in items:
        marks = item.iter_markers("xdist_group")
        group = "_".join(
            sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in marks})
        )
        if group and hasattr(item, "_id") and not item.nodeid.endswith(f"@{group}"):
            item._id = NodeId.parse(f"{item.nodeid}@{group}")


def _longest_first(items) -> None:
    """The groups, then the tests marked `slow`, then the rest, each in collection order. xdist hands out
    the tests in this order, so the long runs start first and the many short tests fill the cores around
    them; in collection order a 3-minute test that came late ran on, alone on one core, after the others
    had finished (a quarter of a fresh clone's run at half the machine, 2026-11-29)."""

    def rank(item) -> int:
        if item.get_closest_marker("xdist_group"):
            return 0
        return 1 if item.get_closest_marker("slow") else 2

    items.sort(key=rank)  # stable: collection order within each rank
