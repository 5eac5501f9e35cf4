"""Every role against every API operation: allowed ones succeed, forbidden ones get 403, anonymous 401.

`CALLS` holds one valid request per operation in `accounts.roles.OPERATIONS`; a test fails when an API
view exists whose operation has no entry here, so the matrix grows with every app. Each call runs on a
fresh world in which every role's user is a member of a collection, with images in the stages the call
needs and, where an operation needs one, a lease held by the acting user, so an allowed call succeeds.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from PIL import Image as PILImage

from accounts.roles import OPERATIONS, Role
from accounts.services import token_create
from annotations.models import MemberRole, Stage
from annotations.services.images import image_upload
from datasets.formats import jsonl_line
from datasets.services.creation import import_create
from datasets.services.run import import_run
from tests.factories import (
    CollectionFactory,
    ImageFactory,
    MembershipFactory,
    PredictionFactory,
    UserFactory,
    VocabularyFactory,
    vocabulary_document,
)
from tests.storage_fixtures import BUCKET
from vtt_site.api.operations import operation_of

pytestmark = pytest.mark.django_db


@dataclass
class Call:
    method: str
    path: str
    data: Any = None
    format: str | None = "json"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class World:
    actor: Any
    users: dict[Role, Any]
    collection: Any = None
    # A member who is none of the role fixtures' users: the annotator of the images waiting in review.
    other: Any = None
    # The test's request: an operation on a bucket asks for the `bucket` fixture (the local SeaweedFS).
    request: Any = None

    @property
    def c(self) -> str:
        return f"/api/v1/collections/{self.collection.pk}"

    def image(self, **fields) -> Any:
        return ImageFactory(collection=self.collection, **fields)

    def test_image(self) -> Any:
        """A test image with its pixels: a test refuses images without."""
        return self.image(split="test", file=ContentFile(png().read(), name="matrix-test.png"))

    def leased(self, stage: Stage = Stage.ANNOTATE, **fields) -> Any:
        """An image in `stage` whose lease the actor holds."""
        expires = timezone.now() + timedelta(minutes=30)
        return self.image(stage=stage, lease_holder=self.actor, lease_expires_at=expires, **fields)

    def in_review(self, **fields) -> Any:
        return self.image(stage=Stage.REVIEW, annotator=self.other, annotated_at=timezone.now(), **fields)


def previewed_import(w: World) -> Any:
    """An import waiting for a choice (asked to preview)."""
    job = import_create(
        collection=w.collection,
        format="jsonl",
        file=ContentFile(jsonl_line(RECORD).encode(), name="s.jsonl"),
        preview=True,
        start=False,
    )
    return import_run(job_id=job.pk)


NO_BACKEND = "http://127.0.0.1:9/"


def connected(w: World) -> str:
    """The world's collection, connected to a model server; its API path."""
    from annotations.services.suggestions import model_backend_set

    model_backend_set(collection=w.collection, user=None, url=NO_BACKEND)
    return w.c


def bucketed(w: World) -> str:
    """The files in a prefix of the local SeaweedFS's bucket (tests/storage_fixtures.py); that prefix."""
    return w.request.getfixturevalue("bucket")


def sourced(w: World) -> str:
    """The world's collection, filled from an empty prefix of the bucket; its API path."""
    from datasets.models import BucketSource

    BucketSource.objects.create(collection=w.collection, bucket=BUCKET, prefix=f"{bucketed(w)}/none/")
    return w.c


def preannotation(w: World) -> Any:
    from annotations.services.preannotation import preannotation_create

    connected(w)
    return preannotation_create(collection=w.collection, start=False)


def png(name: str = "matrix.png") -> SimpleUploadedFile:
    buffer = io.BytesIO()
    PILImage.new("RGB", (16, 12), (10, 120, 30)).save(buffer, format="PNG")
    return SimpleUploadedFile(name, buffer.getvalue())


SCENE = {"objects": [{"id": "a", "type": "person", "bbox": [1, 1, 10, 20]}], "relationships": []}
RECORD = {"image": "imported.jpg", "width": 100, "height": 80} | SCENE


def crowd_work(w: World, *, pixels: bool = False) -> int:
    """The world's collection drawn by two annotators per image, and the actor's work on one image."""
    from crowd.models import Copy
    from crowd.services.settings import crowd_settings_update

    crowd_settings_update(collection=w.collection, values={"overlap": 2})
    image = image_upload(collection=w.collection, files=[png()]).created[0] if pixels else w.image()
    expires = timezone.now() + timedelta(minutes=30)
    return Copy.objects.create(
        image=image, annotator=w.actor, lease_holder=w.actor, lease_expires_at=expires
    ).pk


def crowd_image(w: World) -> Any:
    from crowd.services.settings import crowd_settings_update

    crowd_settings_update(collection=w.collection, values={"overlap": 2, "gold_rate": 0})
    return w.image()


def crowd_merge(w: World, *, held: bool = True) -> int:
    """An image of the world's crowd collection drawn by another member and merged, waiting for review
    (held by the actor unless `held` is False); the image's id."""
    from crowd.models import Copy, CopyState, ImageMerge

    image = crowd_image(w)
    image.stage = Stage.REVIEW
    image.save(update_fields=["stage"])
    Copy.objects.create(image=image, annotator=w.other, state=CopyState.SUBMITTED, document=SCENE)
    lease = (
        {"lease_holder": w.actor, "lease_expires_at": timezone.now() + timedelta(minutes=30)} if held else {}
    )
    ImageMerge.objects.create(image=image, merged={"objects": [], "relationships": []}, **lease)
    return image.pk


def crowd_gold_path(w: World) -> str:
    image = crowd_image(w)
    image.stage = Stage.ACCEPTED
    image.save(update_fields=["stage"])
    return f"/api/v1/crowd/images/{image.pk}/gold/"


def crowd_paused(w: World) -> str:
    from crowd.models import Pause

    crowd_image(w)
    Pause.objects.create(collection=w.collection, annotator=w.other, reason="matrix")
    return f"{w.c}/crowd/pauses/{w.other.pk}/"


Builder = Callable[[World], Call]

CALLS: dict[str, Builder] = {
    "account.read": lambda w: Call("get", "/api/v1/me/"),
    "tokens.list": lambda w: Call("get", "/api/v1/tokens/"),
    "tokens.create": lambda w: Call("post", "/api/v1/tokens/", {"name": "matrix"}),
    "tokens.revoke": lambda w: Call(
        "delete", f"/api/v1/tokens/{token_create(user=w.actor, name='to-revoke')[0].pk}/"
    ),
    # annotations
    "vocabulary.list": lambda w: Call("get", "/api/v1/vocabularies/"),
    "vocabulary.read": lambda w: Call("get", f"/api/v1/vocabularies/{w.collection.vocabulary_id}/"),
    "vocabulary.create": lambda w: Call("post", "/api/v1/vocabularies/", vocabulary_document(name="matrix")),
    "vocabulary.update": lambda w: Call(
        "put",
        f"/api/v1/vocabularies/{VocabularyFactory(name='unused').pk}/",
        vocabulary_document(name="unused"),
    ),
    "collection.list": lambda w: Call("get", "/api/v1/collections/"),
    "collection.read": lambda w: Call("get", f"{w.c}/"),
    "collection.create": lambda w: Call(
        "post", "/api/v1/collections/", {"name": "matrix-new", "vocabulary": w.collection.vocabulary_id}
    ),
    "collection.members.list": lambda w: Call("get", f"{w.c}/members/"),
    "collection.members.add": lambda w: Call(
        "post", f"{w.c}/members/", {"user": UserFactory().pk, "role": "annotator"}
    ),
    "collection.members.remove": lambda w: Call("delete", f"{w.c}/members/{w.other.pk}/"),
    "image.list": lambda w: Call("get", f"{w.c}/images/?stage=annotate"),
    "image.read": lambda w: Call("get", f"/api/v1/images/{w.image().pk}/"),
    "image.file": lambda w: Call(
        "get", f"/api/v1/images/{image_upload(collection=w.collection, files=[png()]).created[0].pk}/file/"
    ),
    "image.upload": lambda w: Call("post", f"{w.c}/images/", {"files": [png()]}, format="multipart"),
    "image.update": lambda w: Call("patch", f"/api/v1/images/{w.image().pk}/", {"split": "test"}),
    "annotation.read": lambda w: Call("get", f"/api/v1/images/{w.image().pk}/annotation/"),
    "annotation.save": lambda w: Call("put", f"/api/v1/images/{w.leased().pk}/annotation/", SCENE),
    "annotation.submit": lambda w: Call("post", f"/api/v1/images/{w.leased().pk}/submit/"),
    "queue.annotation.next": lambda w: Call("post", f"{w.c}/queue/annotation/next/", w.image() and None),
    "queue.review.next": lambda w: Call("post", f"{w.c}/queue/review/next/", w.in_review() and None),
    # crowds
    "crowd.settings.read": lambda w: Call("get", f"{w.c}/crowd/"),
    "crowd.settings.update": lambda w: Call("patch", f"{w.c}/crowd/", {"iou_threshold": 0.6}),
    "crowd.queue.next": lambda w: Call("post", f"{w.c}/crowd/queue/next/", crowd_image(w) and None),
    "crowd.work.read": lambda w: Call("get", f"/api/v1/crowd/work/{crowd_work(w)}/annotation/"),
    "crowd.work.save": lambda w: Call("put", f"/api/v1/crowd/work/{crowd_work(w)}/annotation/", SCENE),
    "crowd.work.submit": lambda w: Call("post", f"/api/v1/crowd/work/{crowd_work(w)}/submit/"),
    "crowd.work.release": lambda w: Call("delete", f"/api/v1/crowd/work/{crowd_work(w)}/lease/"),
    "crowd.work.file": lambda w: Call("get", f"/api/v1/crowd/work/{crowd_work(w, pixels=True)}/file/"),
    "crowd.merges.list": lambda w: Call("get", f"{w.c}/crowd/merges/", crowd_image(w) and None),
    "crowd.summary": lambda w: Call("get", f"{w.c}/crowd/summary/", crowd_image(w) and None),
    "crowd.review.next": lambda w: Call(
        "post", f"{w.c}/crowd/review/next/", crowd_merge(w, held=False) and None
    ),
    "crowd.merge.read": lambda w: Call("get", f"/api/v1/crowd/images/{crowd_merge(w)}/merge/"),
    "crowd.merge.correct": lambda w: Call("put", f"/api/v1/crowd/images/{crowd_merge(w)}/merge/", SCENE),
    "crowd.merge.release": lambda w: Call("delete", f"/api/v1/crowd/images/{crowd_merge(w)}/merge/"),
    "crowd.merge.accept": lambda w: Call("post", f"/api/v1/crowd/images/{crowd_merge(w)}/merge/accept/"),
    "crowd.gold.mark": lambda w: Call("post", crowd_gold_path(w)),
    "crowd.pauses.list": lambda w: Call("get", f"{w.c}/crowd/pauses/", crowd_image(w) and None),
    "crowd.pauses.lift": lambda w: Call("delete", crowd_paused(w)),
    "crowd.copies.export": lambda w: Call("get", f"{w.c}/crowd/copies/", crowd_merge(w) and None),
    "crowd.quality.read": lambda w: Call("get", f"{w.c}/crowd/quality/", crowd_image(w) and None),
    "queue.release": lambda w: Call("delete", f"/api/v1/images/{w.leased().pk}/lease/"),
    "review.decide": lambda w: Call(
        "post",
        f"/api/v1/images/{w.in_review(lease_holder=w.actor, lease_expires_at=timezone.now() + timedelta(hours=1)).pk}"
        "/review/",
        {"decision": "accept"},
    ),
    "review.correct": lambda w: Call(
        "put",
        f"/api/v1/images/{w.in_review(lease_holder=w.actor, lease_expires_at=timezone.now() + timedelta(hours=1)).pk}"
        "/review/annotation/",
        SCENE,
    ),
    "suggestions.reject": lambda w: Call(
        "post", f"/api/v1/suggestions/{PredictionFactory(image=w.leased()).pk}/reject/"
    ),
    "suggestions.restore": lambda w: Call(
        "post", f"/api/v1/suggestions/{PredictionFactory(image=w.leased(), status='rejected').pk}/restore/"
    ),
    "import.create": lambda w: Call(
        "post",
        f"{w.c}/imports/",
        {"file": SimpleUploadedFile("s.jsonl", jsonl_line(RECORD).encode()), "format": "jsonl"},
        format="multipart",
    ),
    "import.read": lambda w: Call(
        "get",
        "/api/v1/imports/{}/".format(
            import_create(
                collection=w.collection, format="jsonl", file=ContentFile(b"", name="s.jsonl"), start=False
            ).pk
        ),
    ),
    "import.list": lambda w: Call("get", f"{w.c}/imports/"),
    "import.confirm": lambda w: Call(
        "post", f"/api/v1/imports/{previewed_import(w).pk}/confirm/", {"accepted": "keep"}
    ),
    "import.cancel": lambda w: Call("post", f"/api/v1/imports/{previewed_import(w).pk}/cancel/"),
    "export.read": lambda w: Call("get", f"{w.c}/export/jsonl/?stage=accepted"),
    "export.bucket": lambda w: Call(
        "post", f"{w.c}/export/jsonl/bucket/", {"bucket": BUCKET, "key": f"{bucketed(w)}/export.jsonl"}
    ),
    # a collection filled from a bucket (issue 49)
    "bucket_source.read": lambda w: Call("get", f"{sourced(w)}/bucket-source/"),
    "bucket_source.set": lambda w: Call(
        "put", f"{w.c}/bucket-source/", {"bucket": BUCKET, "prefix": f"{bucketed(w)}/none/"}
    ),
    "bucket_source.sync": lambda w: Call("post", f"{sourced(w)}/bucket-source/sync/"),
    # suggestions from a model (decision 0078); nothing listens at the backend's address: a check says so
    "suggestions.backend.read": lambda w: Call("get", f"{connected(w)}/model-backend/"),
    "suggestions.backend.set": lambda w: Call("put", f"{w.c}/model-backend/", {"url": NO_BACKEND}),
    "suggestions.backend.clear": lambda w: Call("delete", f"{connected(w)}/model-backend/"),
    "suggestions.backend.check": lambda w: Call("post", f"{connected(w)}/model-backend/check/"),
    "suggestions.preannotate": lambda w: Call("post", f"{connected(w)}/model-backend/preannotate/"),
    "suggestions.preannotate.read": lambda w: Call("get", f"/api/v1/preannotations/{preannotation(w).pk}/"),
    "suggestions.read": lambda w: Call("get", f"/api/v1/images/{w.leased().pk}/suggestions/"),
    # engine
    "statistics.list": lambda w: Call("get", "/api/v1/statistics/"),
    "statistics.read": lambda w: Call("get", f"/api/v1/statistics/{ready_statistics(w).pk}/"),
    "statistics.create": lambda w: Call(
        "post", "/api/v1/statistics/", {"collections": [w.image(stage=Stage.ACCEPTED) and w.collection.pk]}
    ),
    "statistics.estimate": lambda w: Call(
        "post",
        f"/api/v1/statistics/{ready_statistics(w).pk}/estimate/",
        {
            "history": [],
            "question": {"kind": "exist", "type": "person", "region": "whole"},
            "width": 64,
            "height": 48,
        },
    ),
    # truthing
    "truthing.test.list": lambda w: Call("get", "/api/v1/truthing/tests/"),
    "truthing.test.read": lambda w: Call("get", f"/api/v1/truthing/tests/{a_test(w).pk}/"),
    "truthing.test.create": lambda w: Call(
        "post",
        "/api/v1/truthing/tests/",
        {"name": "matrix", "statistics": ready_statistics(w).pk, "images": [w.test_image().pk]},
    ),
    "truthing.test.start": lambda w: Call("post", f"/api/v1/truthing/tests/{a_test(w, 'draft').pk}/start/"),
    "truthing.test.publish": lambda w: Call(
        "post", f"/api/v1/truthing/tests/{a_truthed_test(w).pk}/publish/"
    ),
    "truthing.test.archive": lambda w: Call(
        "post", f"/api/v1/truthing/tests/{a_test(w, 'published').pk}/archive/"
    ),
    "truthing.test.export": lambda w: Call("get", f"/api/v1/truthing/tests/{a_test(w).pk}/export/"),
    "truthing.test.audit": lambda w: Call("post", f"/api/v1/truthing/tests/{a_test(w).pk}/audit/"),
    "truthing.test.pool.grow": lambda w: Call(
        "post", f"/api/v1/truthing/tests/{a_test(w, 'published').pk}/pools/", {"position": 0, "streams": 1}
    ),
    "truthing.queue.next": lambda w: Call(
        "post", "/api/v1/truthing/queue/next/", a_stream(w, holder=None) and None
    ),
    "truthing.stream.read": lambda w: Call("get", f"/api/v1/truthing/streams/{a_stream(w).pk}/"),
    "truthing.step.answer": lambda w: Call(
        "post", f"/api/v1/truthing/streams/{a_stream(w).pk}/answer/", {"step": 0, "answer": "no"}
    ),
    "truthing.step.undo": lambda w: Call(
        "post", f"/api/v1/truthing/streams/{a_stream(w, answered=True).pk}/undo/"
    ),
    "truthing.stream.leave": lambda w: Call("post", f"/api/v1/truthing/streams/{a_stream(w).pk}/leave/"),
    "truthing.check.read": lambda w: Call("get", f"/api/v1/truthing/checks/{a_check(w).pk}/"),
    "truthing.check.answer": lambda w: Call(
        "post", f"/api/v1/truthing/checks/{a_check(w).pk}/answer/", {"step": 0, "answer": "yes"}
    ),
    "truthing.check.undo": lambda w: Call(
        "post", f"/api/v1/truthing/checks/{a_check(w, answered=True).pk}/undo/"
    ),
    "truthing.check.leave": lambda w: Call("post", f"/api/v1/truthing/checks/{a_check(w).pk}/leave/"),
    "truthing.disagreement.list": lambda w: Call("get", "/api/v1/truthing/disagreements/"),
    "truthing.disagreement.decide": lambda w: Call(
        "post", f"/api/v1/truthing/disagreements/{a_disagreement(w).pk}/decide/", {"answer": "no"}
    ),
    "truthing.operators.statistics": lambda w: Call("get", "/api/v1/truthing/operators/"),
    # evaluation
    "evaluation.system.list": lambda w: Call("get", "/api/v1/evaluation/systems/"),
    "evaluation.system.create": lambda w: Call("post", "/api/v1/evaluation/systems/", {"name": "matrix"}),
    "evaluation.system.read": lambda w: Call("get", f"/api/v1/evaluation/systems/{a_system(w).pk}/"),
    "evaluation.system.scores": lambda w: Call(
        "get", f"/api/v1/evaluation/systems/{a_public_system_of_another(w).pk}/scores/"
    ),
    "evaluation.system.token.create": lambda w: Call(
        "post", f"/api/v1/evaluation/systems/{a_system(w).pk}/tokens/", {"name": "matrix"}
    ),
    "evaluation.test.list": lambda w: Call("get", "/api/v1/evaluation/tests/"),
    "evaluation.session.list": lambda w: Call("get", "/api/v1/evaluation/sessions/"),
    "evaluation.session.create": lambda w: Call(
        "post", f"/api/v1/evaluation/tests/{a_published_test().pk}/sessions/", {"system": a_system(w).pk}
    ),
    "evaluation.session.read": lambda w: Call("get", f"/api/v1/evaluation/sessions/{a_session(w).pk}/"),
    "evaluation.question.read": lambda w: Call(
        "get", f"/api/v1/evaluation/sessions/{a_session(w).pk}/question/"
    ),
    "evaluation.answer.create": lambda w: Call(
        "post",
        f"/api/v1/evaluation/sessions/{a_session(w).pk}/answers/",
        {"stream": 0, "step": 0, "answer": "yes"},
    ),
    "evaluation.image.file": lambda w: Call("get", session_image_url(w)),
    "evaluation.score.read": lambda w: Call("get", f"/api/v1/evaluation/sessions/{a_session(w).pk}/score/"),
    "evaluation.session.results": lambda w: Call(
        "get", f"/api/v1/evaluation/sessions/{a_session(w, over=True).pk}/results/"
    ),
    "evaluation.session.void": lambda w: Call(
        "post", f"/api/v1/evaluation/sessions/{a_session(w).pk}/void/", {"reason": "matrix"}
    ),
    "evaluation.leaderboard.read": lambda w: Call(
        "get", f"/api/v1/evaluation/tests/{a_published_test().pk}/leaderboard/"
    ),
}


def a_system(world: World) -> Any:
    from evaluation.models import VisionSystem

    return VisionSystem.objects.get_or_create(owner=world.actor, name="matrix system")[0]


def a_public_system_of_another(world: World) -> Any:
    """A public system that is not the actor's: what everyone may read of it is its scores."""
    from evaluation.models import VisionSystem

    return VisionSystem.objects.get_or_create(owner=world.other, name="someone's system", public=True)[0]


def a_published_test() -> Any:
    from tests.evaluation.conftest import build_test
    from truthing.models import Test

    return build_test(name=f"matrix published {Test.objects.count()}")


def a_session(world: World, over: bool = False) -> Any:
    from evaluation.models import Session

    test = a_published_test()
    return Session.objects.create(
        system=a_system(world), test=test, total=11, state="finished" if over else "active"
    )


def session_image_url(world: World) -> str:
    session = a_session(world)
    image = session.test.test_images.order_by("position").first()
    return f"/api/v1/evaluation/sessions/{session.pk}/images/{image.pk}/"


QUESTION = {
    "kind": "exist",
    "type": "person",
    "attributes": [],
    "region": {"id": "whole", "box": [0, 0, 640, 480]},
}


def a_test(world: World, state: str = "truthing") -> Any:
    """A test of the world's statistics in `state`, rows made directly (no engine needed)."""
    from truthing.models import Test, TestImage

    test = Test.objects.create(
        name=f"matrix {state}", statistics=ready_statistics(world), state=state, engine_settings={}
    )
    TestImage.objects.create(test=test, image=world.test_image(), position=0)
    return test


def a_stream(world: World, holder: Any = "actor", answered: bool = False) -> Any:
    """An operator stream of a test being truthed: its first question pending (or answered by the
    actor when `answered`), held by the actor unless `holder` is None."""
    from truthing.models import Step, Stream

    test = a_test(world)
    holder = world.actor if holder == "actor" else holder
    stream = Stream.objects.create(
        test_image=test.test_images.get(),
        state="proposing" if answered else "pending",
        lease_holder=holder,
        lease_expires_at=timezone.now() + timedelta(minutes=30) if holder else None,
    )
    Step.objects.create(
        stream=stream,
        index=0,
        question=QUESTION,
        text="Is there a person in the designated region?",
        p=0.5,
        population=20,
        answer="yes" if answered else "",
        answered_by=world.actor if answered else None,
    )
    return stream


def a_truthed_test(world: World) -> Any:
    """A test being truthed whose one stream has ended with a question answered: it may be published."""
    stream = a_stream(world, holder=None, answered=True)
    stream.state = "ended"
    stream.save()
    return stream.test_image.test


def a_check(world: World, answered: bool = False) -> Any:
    """A check the actor holds on someone else's ended stream; `answered`: its first question answered."""
    from truthing.models import Check, CheckAnswer

    stream = a_stream(world, holder=None, answered=True)
    stream.state = "ended"
    stream.save()
    stream.steps.update(answered_by=world.other)
    expires = timezone.now() + timedelta(minutes=30)
    check = Check.objects.create(
        stream=stream, kind="second_opinion", lease_holder=world.actor, lease_expires_at=expires
    )
    if answered:
        CheckAnswer.objects.create(check_pass=check, step=stream.steps.get(index=0), answer="no")
    return check


def a_disagreement(world: World) -> Any:
    from truthing.models import CheckAnswer, Disagreement

    check = a_check(world)
    step = check.stream.steps.get()
    return Disagreement.objects.create(
        step=step, check_answer=CheckAnswer.objects.create(check_pass=check, step=step, answer="no")
    )


def ready_statistics(world: World) -> Any:
    """Statistics fitted on one reviewed (empty) training image of the world's collection."""
    from engine import services
    from engine.models import FitStatus, FittedStatistics

    ready = FittedStatistics.objects.filter(collections=world.collection, status=FitStatus.READY).first()
    if ready is not None:
        return ready
    world.image(stage=Stage.ACCEPTED)
    statistics = services.statistics_fit_start(user=None, collections=[world.collection])
    return services.statistics_fit_run(statistics_id=statistics.pk)


def api_operations() -> set[str]:
    """The operations of every view mounted under /api/v1/, read from the URL configuration."""
    found: set[str] = set()

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and route.startswith("api/v1/"):
                view_class = getattr(pattern.callback, "view_class", None)
                if view_class is None or view_class.__module__.startswith("drf_spectacular"):
                    continue
                view = view_class()
                for method in ("get", "post", "put", "patch", "delete"):
                    if hasattr(view_class, method):
                        found.add(operation_of(view, method.upper()))

    walk(get_resolver().url_patterns, "")
    return found


def test_every_api_operation_is_in_the_role_matrix_and_has_a_call():
    mounted = api_operations()
    assert mounted - set(OPERATIONS) == set(), "views name operations missing from accounts.roles"
    assert set(OPERATIONS) - set(CALLS) == set(), "operations without a call in this test"
    assert set(OPERATIONS) - mounted == set(), "operations listed but not mounted"


def perform(api, call: Call):
    return getattr(api, call.method)(call.path, data=call.data, format=call.format, **call.headers)


@pytest.mark.parametrize("role", list(Role), ids=lambda r: r.value.replace(" ", "-"))
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_role_matrix(operation, role, api, users, world_factory):
    world = world_factory(actor=users[role], users=users)
    call = CALLS[operation](world)
    response = perform(api.as_user(users[role]), call)
    if role in OPERATIONS[operation]:
        assert 200 <= response.status_code < 300, (
            operation,
            role,
            response.status_code,
            response.content[:300],
        )
    else:
        assert response.status_code == 403, (operation, role, response.status_code)
        assert response.json()["code"] == "permission_denied"


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_anonymous_gets_401(operation, api, users, world_factory):
    call = CALLS[operation](world_factory(actor=users[Role.ADMIN], users=users))
    response = perform(api, call)
    assert response.status_code == 401, (operation, response.status_code)


# The role each user has in the world's collection; every one of them is a member of it.
MEMBER_ROLES = {
    Role.ANNOTATOR: MemberRole.ANNOTATOR,
    Role.REVIEWER: MemberRole.REVIEWER,
    Role.OPERATOR: MemberRole.OPERATOR,
    Role.VISION_SYSTEM_OWNER: MemberRole.OPERATOR,
    Role.ADMIN: MemberRole.REVIEWER,
}


@pytest.fixture
def world_factory(db, request):
    def build(actor, users) -> World:
        collection = CollectionFactory()
        for role, user in users.items():
            MembershipFactory(collection=collection, user=user, role=MEMBER_ROLES[role])
        other = UserFactory(role=Role.ANNOTATOR, username="matrix-other")
        MembershipFactory(collection=collection, user=other, role=MemberRole.ANNOTATOR)
        return World(actor=actor, users=users, collection=collection, other=other, request=request)

    return build


# --- Membership roles (issue 11, item 4; decision 0006) ------------------------------------------------

# Operations performed inside one collection: the role the actor's membership there grants must allow
# them too, not only the actor's global roles.
SCOPED = sorted(
    operation
    for operation in OPERATIONS
    if operation.split(".")[0]
    in {"image", "annotation", "queue", "review", "import", "export", "suggestions", "crowd", "bucket_source"}
    or operation in {"collection.read", "collection.members.list"}
)


@pytest.mark.parametrize("member_role", list(MemberRole), ids=str)
@pytest.mark.parametrize("operation", SCOPED)
def test_membership_role_matrix(operation, member_role, api, users, world_factory):
    """A user with every worker role globally acts in a collection only as its membership there says."""
    from django.contrib.auth.models import Group

    from accounts.roles import COLLECTION_WORKERS

    actor = UserFactory(role=Role.ANNOTATOR, username="every-role")
    actor.groups.add(*(Group.objects.get_or_create(name=r.value)[0] for r in (Role.REVIEWER, Role.OPERATOR)))
    world = world_factory(actor=actor, users=users)
    MembershipFactory(collection=world.collection, user=actor, role=member_role)
    response = perform(api.as_user(actor), CALLS[operation](world))
    allowed = OPERATIONS[operation]
    if Role(member_role) in allowed or allowed >= COLLECTION_WORKERS:
        assert 200 <= response.status_code < 300, (operation, member_role, response.content[:300])
    else:
        assert response.status_code == 403, (operation, member_role, response.status_code)
        assert response.json()["code"] == "member_role_forbids"
