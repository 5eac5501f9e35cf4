"""Fixtures of the annotation tests: a collection of the default vocabulary whose members are the
users of the `users` fixture (one per role), plus a second annotator and a second reviewer."""

from __future__ import annotations

import pytest

from accounts.roles import Role

# Django-dependent imports are made inside the fixtures, so that importing this file needs no Django.


@pytest.fixture
def collection(users):
    from annotations.models import MemberRole
    from tests.factories import CollectionFactory, MembershipFactory

    collection = CollectionFactory()
    for role, member_role in [
        (Role.ANNOTATOR, MemberRole.ANNOTATOR),
        (Role.REVIEWER, MemberRole.REVIEWER),
        (Role.OPERATOR, MemberRole.OPERATOR),
    ]:
        MembershipFactory(collection=collection, user=users[role], role=member_role)
    return collection


@pytest.fixture
def annotator(users):
    return users[Role.ANNOTATOR]


@pytest.fixture
def reviewer(users):
    return users[Role.REVIEWER]


@pytest.fixture
def other_annotator(collection):
    from annotations.models import MemberRole
    from tests.factories import MembershipFactory, UserFactory

    user = UserFactory(role=Role.ANNOTATOR, username="annotator-2")
    MembershipFactory(collection=collection, user=user, role=MemberRole.ANNOTATOR)
    return user


@pytest.fixture
def other_reviewer(collection):
    from annotations.models import MemberRole
    from tests.factories import MembershipFactory, UserFactory

    user = UserFactory(role=Role.REVIEWER, username="reviewer-2")
    MembershipFactory(collection=collection, user=user, role=MemberRole.REVIEWER)
    return user


@pytest.fixture
def outsider(db):
    """An annotator who is not a member of the collection."""
    from tests.factories import UserFactory

    return UserFactory(role=Role.ANNOTATOR, username="outsider")


SCENE = {
    "objects": [
        {
            "id": "a",
            "type": "person",
            "bbox": [10, 20, 30, 60],
            "attributes": ["walking", "female", "adult", "on sidewalk"],
            "attributes_known": True,
        },
        {"id": "b", "type": "person", "bbox": [100, 20, 30, 60], "attributes": [], "attributes_known": False},
        {
            "id": "c",
            "type": "vehicle",
            "bbox": [200, 100, 150, 80],
            "attributes": ["car", "parked", "light-colored", "two"],
            "attributes_known": True,
        },
    ],
    "relationships": [
        {"subject": "a", "predicate": "talking", "object": "b"},
        {"subject": "a", "predicate": "closer than", "object": "c"},
    ],
}


@pytest.fixture
def leased_image(collection, annotator):
    """An image of the collection in the annotation queue, leased to the annotator."""
    from annotations.services.queues import annotation_next
    from tests.factories import ImageFactory

    image = ImageFactory(collection=collection)
    assert annotation_next(collection=collection, user=annotator) == image
    image.refresh_from_db()
    return image


# --- Suggestions from a model (decision 0078) --------------------------------------------------------------


@pytest.fixture
def fake_backend():
    """A Label Studio ML backend on a thread (tests/fake_ml_backend.py), stopped after the test."""
    from tests.fake_ml_backend import FakeMLBackend

    with FakeMLBackend(seed=5) as fake:
        yield fake


@pytest.fixture
def site(live_server, settings):
    """The platform served on a thread, where the signed image URLs point; short timeouts, so that a
    slow backend costs the test a second or two."""
    settings.SITE_URL = live_server.url + "/"
    settings.SUGGESTIONS_TIMEOUT_SECONDS = 2.0
    settings.SUGGESTIONS_WAIT_SECONDS = 1.5
    return live_server


@pytest.fixture
def scene_images(collection, fake_backend):
    """`scene_images(count)`: that many demo street scenes drawn and uploaded to the collection (to
    annotate), each registered with the fake backend by the bytes the platform serves; [(image, scene,
    digest)] in id order."""
    from annotations.models import Split
    from demo.pictures import scene_pictures_upload
    from demo.synthetic.scenes import generate_scenes

    def make(count: int, seed: int = 61) -> list:
        scenes = list(generate_scenes(count, seed=seed, prefix=f"suggest{seed}"))
        images = scene_pictures_upload(collection=collection, scenes=scenes, split=Split.TRAIN)
        by_name, made = {scene["image"]: scene for scene in scenes}, []
        for image in sorted(images, key=lambda i: i.pk):
            scene = by_name[image.original_name]
            with image.file.open("rb") as handle:
                made.append((image, scene, fake_backend.register(handle.read(), scene)))
        return made

    return make


@pytest.fixture
def connect(collection, reviewer, fake_backend):
    """`connect(**settings)`: the collection asks the fake backend (no authentication unless said)."""
    from annotations.services.suggestions import model_backend_set

    def make(**changes):
        return model_backend_set(collection=collection, user=reviewer, url=fake_backend.url, **changes)

    return make
