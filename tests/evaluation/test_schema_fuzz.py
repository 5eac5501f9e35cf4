"""Schemathesis fuzzes the evaluation operations of docs/openapi.yaml through the WSGI application, with
an owner's token, a system-scoped token and an admin's, on a world where ids 1..n hit real objects (a
published test, sessions midway and over): no 5xx, and every response agrees with the schema (status
codes, content types, bodies). Bounded by FUZZ_MAX_EXAMPLES per operation. The hardening branch fuzzes
the whole schema the same way; this file covers the evaluation endpoints until they meet."""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase
from hypothesis import settings as hypothesis_settings
from schemathesis import checks

from accounts.roles import Role
from accounts.services import token_create
from evaluation.services.sessions import answer_submit, session_enrol
from evaluation.services.systems import system_create, system_token_create
from tests.evaluation.conftest import build_test
from tests.openapi_document import openapi_copy
from vtt_site.wsgi import application

MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "8"))

schema = schemathesis.openapi.from_dict(openapi_copy()).include(path_regex="^/api/v1/evaluation/")
schema.app = application

CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
]

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """Called as a WSGI app, Django closes "old" connections at each request's start and end, which
    would close the test's transaction; Django's own test client disconnects the same handlers."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def tokens(users, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_CLASSES": []}
    owner = users[Role.VISION_SYSTEM_OWNER]
    test = build_test(name="fuzzed")
    system = system_create(owner=owner, name="fuzzed system")
    midway = session_enrol(system=system, test_id=test.pk)
    answer_submit(session_id=midway.pk, stream=0, step=0, answer=True)
    other = system_create(owner=owner, name="finished system")
    over = session_enrol(system=other, test_id=test.pk)
    for stream, step in [
        (0, 0),
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 0),
        (1, 1),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 0),
        (2, 1),
    ]:
        answer_submit(session_id=over.pk, stream=stream, step=step, answer=False)
    return [
        token_create(user=owner, name="fuzz")[1],
        system_token_create(system=system, name="fuzz scoped")[1],
        token_create(user=users[Role.ADMIN], name="fuzz")[1],
    ]


@schema.parametrize()
@hypothesis_settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_every_evaluation_operation_conforms_to_the_schema(case, tokens):
    for secret in tokens:
        response = case.call(headers={"Authorization": f"Token {secret}"})
        case.validate_response(response, checks=CHECKS)
