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
import yaml
from django.db import transaction
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


def with_work_links(raw: dict) -> dict:
    """OpenAPI links from the operator queue's answer to what an operator does with the work it names
    (the `id` of a stream or a check), which schemathesis cannot infer: the queue's path has no id."""
    work = {"stream_id": "$response.body#/id"}
    checks = {"check_id": "$response.body#/id"}
    links = {
        "AnswerStream": {"operationId": "truthing_step_answer", "parameters": work},
        "UndoStream": {"operationId": "truthing_step_undo", "parameters": work},
        "LeaveStream": {"operationId": "truthing_stream_leave", "parameters": work},
        "AnswerCheck": {"operationId": "truthing_check_answer", "parameters": checks},
        "LeaveCheck": {"operationId": "truthing_check_leave", "parameters": checks},
    }
    raw["paths"]["/api/v1/truthing/queue/next/"]["post"]["responses"]["200"]["links"] = links
    return raw


schema = schemathesis.openapi.from_dict(with_work_links(yaml.safe_load(SCHEMA.read_text())))
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


# --- Stateful: create, then act on what was created ---------------------------------------------------

STATEFUL_EXAMPLES = int(os.environ.get("FUZZ_STATEFUL_EXAMPLES", "60"))
STATEFUL_STEPS = int(os.environ.get("FUZZ_STATEFUL_STEPS", "12"))
REACHED: dict[str, set[int]] = {}


@pytest.fixture
def truthing_world(trained_collection, users, settings):
    """What the truthing operations act on: a fit, a draft test of annotated images (the oracle truths
    it once started) and a started test of images without annotations (operators truth it), so that
    list operations hand the state machine ids in every state."""
    from annotations.models import Split
    from demo.synthetic.scenes import generate_scenes
    from engine import services as engine_services
    from tests.django_fixtures import import_scenes
    from truthing.services import lifecycle

    settings.VTT = {**settings.VTT, "TRUTHING_CHECK_SHARE": 0.5, "TRUTHING_GOLD_SHARE": 0.0}
    fit = engine_services.statistics_fit_start(user=None, collections=[trained_collection])
    engine_services.statistics_fit_run(statistics_id=fit.pk)
    fit.refresh_from_db()
    import_scenes(
        trained_collection, generate_scenes(2, seed=44, prefix="blind"), split=Split.TEST, mark_reviewed=False
    )
    annotated = trained_collection.images.filter(original_name__startswith="test").order_by("pk")
    blind = trained_collection.images.filter(original_name__startswith="blind").order_by("pk")
    options = {"settings": {"min_population": 5, "max_questions": 4}, "created_by": users[Role.ADMIN]}
    lifecycle.test_create(
        name="draft", statistics=fit, image_ids=[i.pk for i in annotated[:2]], seed=1, **options
    )
    started = lifecycle.test_create(
        name="blind", statistics=fit, image_ids=[i.pk for i in blind], seed=2, **options
    )
    lifecycle.test_start(test=started)
    MembershipFactory(collection=trained_collection, user=users[Role.ADMIN], role=MemberRole.OPERATOR)


def test_stateful_sequences_conform_to_the_schema(role_tokens, truthing_world):
    """Issue 22, item 7: sequences of calls that use what earlier calls returned (a test created, then
    started, published, audited; a collection created, then an image uploaded and annotated), so that
    the states behind the 409s are reached. The links between operations are inferred by schemathesis
    from the schema (ids in responses, parameters of paths). As an admin, who may call every operation."""
    admin = role_tokens[Role.ADMIN]

    class Workflow(schema.as_state_machine()):
        def setup(self):
            # Every sequence starts from the same world, so that Hypothesis can replay and shrink one.
            self.savepoint = transaction.savepoint()

        def teardown(self):
            transaction.savepoint_rollback(self.savepoint)

        def get_call_kwargs(self, case):
            return {"headers": {"Authorization": f"Token {admin}"}}

        def validate_response(self, response, case, **kwargs):
            TALLY["requests"] += 1
            TALLY["5xx"] += response.status_code >= 500
            REACHED.setdefault(f"{case.method} {case.path}", set()).add(response.status_code)
            case.validate_response(response, checks=CHECKS)

    Workflow.run(
        settings=hypothesis_settings(
            max_examples=STATEFUL_EXAMPLES,
            stateful_step_count=STATEFUL_STEPS,
            deadline=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
    )
    print(
        f"\nstateful: {len(REACHED)} operations reached; with a 2xx: "
        f"{sum(any(200 <= s < 300 for s in v) for v in REACHED.values())}; "
        f"with a 409: {sorted(k for k, v in REACHED.items() if 409 in v)}"
    )
