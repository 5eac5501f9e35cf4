"""A fitted collection and tests on it: test images with a reviewed annotation (truthed by the oracle)
and test images without (truthed by operators)."""

from __future__ import annotations

import pytest

from accounts.roles import Role

SETTINGS = {"min_population": 5, "max_questions": 12}


@pytest.fixture(autouse=True)
def no_checks_unless_asked(settings):
    """Which ended streams get a check is a hash of their id; tests that want checks set the shares."""
    settings.TRUTHING_CHECK_SHARE = 0.0
    settings.TRUTHING_GOLD_SHARE = 0.0


@pytest.fixture
def statistics(trained_collection):
    from engine import services

    fit = services.statistics_fit_start(user=None, collections=[trained_collection])
    services.statistics_fit_run(statistics_id=fit.pk)  # already done when the test commits (eager task)
    fit.refresh_from_db()
    assert fit.status == "ready", fit.message
    return fit


@pytest.fixture
def unannotated_test_images(trained_collection):
    """Three test images (with pixels) whose scene graphs are still in review: operators truth them."""
    from demo.synthetic.scenes import generate_scenes
    from tests.django_fixtures import import_test_scenes

    import_test_scenes(trained_collection, generate_scenes(3, seed=44, prefix="blind"), mark_reviewed=False)
    return list(trained_collection.images.filter(original_name__startswith="blind").order_by("pk"))


@pytest.fixture
def annotated_test_images(trained_collection):
    return list(trained_collection.images.filter(original_name__startswith="test").order_by("pk"))


@pytest.fixture
def make_test(statistics, users):
    from truthing.services import lifecycle

    def make(images, **kwargs):
        options = {"settings": SETTINGS, "seed": 7} | kwargs
        return lifecycle.create_test(
            name=kwargs.pop("name", f"test {len(images)}-{options['seed']}"),
            statistics=statistics,
            image_ids=[i.pk for i in images],
            created_by=users[Role.ADMIN],
            **{k: v for k, v in options.items() if k != "name"},
        )

    return make


def operator_of(collection, user):
    """A user who operates in the collection (decision 0006: the membership role is what counts)."""
    from annotations.models import MemberRole
    from tests.factories import MembershipFactory

    MembershipFactory(collection=collection, user=user, role=MemberRole.OPERATOR)
    return user


@pytest.fixture
def operators(make_user, trained_collection):
    return [operator_of(trained_collection, make_user(Role.OPERATOR, username=f"op{i}")) for i in range(3)]
