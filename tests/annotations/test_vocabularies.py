"""Vocabularies: documents in and out unchanged, validation with clear errors, versions, and no edit of a
vocabulary that annotations use."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.roles import Role
from annotations.models import ObjectType, Vocabulary
from annotations.selectors.annotation import image_annotation
from annotations.selectors.vocabularies import core_vocabulary, vocabulary_document
from annotations.services.annotation import annotation_save
from annotations.services.queues import annotation_next
from annotations.services.vocabularies import vocabulary_import, vocabulary_install_default, vocabulary_update
from kernel.errors import VocabularyError
from kernel.vocabulary import parse_vocabulary
from tests.annotations.conftest import SCENE
from tests.factories import CollectionFactory, ImageFactory, UserFactory, VocabularyFactory
from tests.factories import vocabulary_document as default_document
from vtt_site.errors import ConflictError

pytestmark = pytest.mark.django_db

CUSTOM = {
    "name": "custom",
    "description": "regions and phrases that are not the defaults",
    "types": {
        "dog": {
            "attribute_groups": [
                {"name": "size", "exclusive": True, "values": ["small", "big"], "phrase": "is a {value} dog"},
                {
                    "name": "leash",
                    "exclusive": False,
                    "values": ["on a leash"],
                    "phrases": {"on a leash": "is leashed"},
                },
            ]
        },
        "cat": {"attribute_groups": []},
    },
    "relationships": [
        {
            "name": "chasing",
            "subject_types": ["dog", "cat"],
            "object_types": ["cat"],
            "symmetric": False,
            "group": "play",
            "phrase": "running after",
        },
        {
            "name": "sleeping with",
            "subject_types": ["cat", "dog"],
            "object_types": ["dog"],
            "symmetric": True,
        },
    ],
    "regions": [{"id": "left", "box": [0, 0, 0.5, 1]}, {"id": "right", "box": [0.5, 0, 1, 1]}],
}


@pytest.mark.parametrize("document", [default_document(), CUSTOM], ids=["urban-street", "custom"])
def test_the_stored_document_parses_to_the_same_vocabulary(document):
    vocabulary = vocabulary_import(document=document)
    assert parse_vocabulary(vocabulary_document(vocabulary)) == parse_vocabulary(document)
    assert core_vocabulary(vocabulary) == parse_vocabulary(document)


def test_importing_an_existing_name_makes_the_next_version():
    first = vocabulary_import(document=CUSTOM)
    second = vocabulary_import(document=CUSTOM)
    assert (first.version, second.version) == (1, 2)
    assert first.name == second.name == "custom"


@pytest.mark.parametrize(
    ("change", "where", "words"),
    [
        (
            {
                "types": {
                    "dog": {
                        "attribute_groups": [{"name": "a", "values": ["x"]}, {"name": "b", "values": ["x"]}]
                    }
                }
            },
            "types.dog.attribute_groups",
            "duplicate attribute value 'x'",
        ),
        (
            {"relationships": [{"name": "r", "subject_types": ["unicorn"], "object_types": ["dog"]}]},
            "relationships[0].subject_types",
            "unknown object type 'unicorn'",
        ),
        ({"types": {}}, "types", "at least one object type"),
        # Found by the stateful fuzzing: a NUL reached PostgreSQL, which refuses it in text (a 500).
        (
            {"types": {"dog": {"attribute_groups": [{"name": "si\x00ze", "values": ["small"]}]}}},
            "types.dog.attribute_groups[0].name",
            "NUL",
        ),
    ],
    ids=["duplicate-value", "unknown-type", "no-types", "nul"],
)
def test_an_invalid_document_is_a_400_naming_the_problem_and_creates_nothing(
    api, users, change, where, words
):
    response = api.as_user(users[Role.ADMIN]).post("/api/v1/vocabularies/", CUSTOM | change, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_vocabulary"
    assert words in body["message"]
    assert list(body["fields"]) == [where] and words in body["fields"][where][0]
    assert not Vocabulary.objects.exists()


def test_update_is_refused_once_an_annotation_uses_the_vocabulary(leased_image, annotator):
    vocabulary = leased_image.collection.vocabulary
    edited = vocabulary_update(
        vocabulary=vocabulary, document=default_document(name=vocabulary.name, description="v")
    )
    assert edited.description == "v"
    annotation_save(image=leased_image, user=annotator, document=SCENE)
    with pytest.raises(ConflictError) as refused:
        vocabulary_update(
            vocabulary=vocabulary, document=default_document(name=vocabulary.name, description="w")
        )
    assert refused.value.code == "vocabulary_in_use"
    vocabulary.refresh_from_db()
    assert vocabulary.description == "v"


def test_an_edit_is_seen_at_once_by_the_cached_core_vocabulary():
    vocabulary = VocabularyFactory()
    assert "person" in core_vocabulary(vocabulary).type_index
    document = CUSTOM | {"name": vocabulary.name}
    edited = vocabulary_update(vocabulary=vocabulary, document=document)
    assert set(core_vocabulary(edited).type_index) == {"dog", "cat"}


def test_update_cannot_rename(api, users):
    vocabulary = VocabularyFactory()
    response = api.as_user(users[Role.ADMIN]).put(
        f"/api/v1/vocabularies/{vocabulary.pk}/", CUSTOM, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "vocabulary_renamed"
    assert ObjectType.objects.filter(vocabulary=vocabulary, name="person").exists()


def test_api_update_of_a_vocabulary_in_use_is_a_409(api, users, leased_image, annotator):
    annotation_save(image=leased_image, user=annotator, document=SCENE)
    vocabulary = leased_image.collection.vocabulary
    response = api.as_user(users[Role.ADMIN]).put(
        f"/api/v1/vocabularies/{vocabulary.pk}/", default_document(name=vocabulary.name), format="json"
    )
    assert response.status_code == 409
    assert response.json()["code"] == "vocabulary_in_use"
    listed = api.get("/api/v1/vocabularies/").json()["results"]
    assert [v["in_use"] for v in listed if v["id"] == vocabulary.pk] == [True]


def test_everyone_reads_the_document(api, users):
    vocabulary = VocabularyFactory()
    response = api.as_user(users[Role.VISION_SYSTEM_OWNER]).get(f"/api/v1/vocabularies/{vocabulary.pk}/")
    assert response.status_code == 200
    assert parse_vocabulary(response.json()["document"]) == core_vocabulary(vocabulary)


def test_install_default_vocabulary_is_idempotent():
    call_command("install_default_vocabulary")
    call_command("install_default_vocabulary")
    assert list(Vocabulary.objects.values_list("name", "version")) == [("urban-street", 1)]
    assert parse_vocabulary(vocabulary_document(Vocabulary.objects.get())) == parse_vocabulary(
        default_document()
    )


def test_vocabulary_errors_come_from_the_engine_core():
    with pytest.raises(VocabularyError):
        vocabulary_import(document={"name": "x", "types": {"t": {"attribute_groups": [{"name": "g"}]}}})


# --- Admin -----------------------------------------------------------------------------------------------


def test_admin_shows_a_vocabulary_in_use_read_only_and_copies_it_as_a_new_version(
    client, users, leased_image, annotator
):
    annotation_save(image=leased_image, user=annotator, document=SCENE)
    vocabulary = leased_image.collection.vocabulary
    client.force_login(users[Role.ADMIN])
    url = reverse("admin:annotations_vocabulary_change", args=[vocabulary.pk])
    page = client.get(url, follow=True)
    assert page.status_code == 200
    assert "read-only" in page.content.decode()
    posted = client.post(url, {"name": "renamed", "description": "changed", "regions": '"default"'})
    assert posted.status_code == 403
    vocabulary.refresh_from_db()
    assert vocabulary.name != "renamed"

    changelist = reverse("admin:annotations_vocabulary_changelist")
    client.post(changelist, {"action": "copy_as_new_version", "_selected_action": [vocabulary.pk]})
    copy = Vocabulary.objects.get(name=vocabulary.name, version=2)
    assert parse_vocabulary(vocabulary_document(copy)) == parse_vocabulary(vocabulary_document(vocabulary))
    assert client.get(reverse("admin:annotations_vocabulary_change", args=[copy.pk])).status_code == 200


def test_admin_edit_that_breaks_the_vocabulary_is_rolled_back(client, users):
    vocabulary = VocabularyFactory()
    group = vocabulary.types.get(name="person").groups.get(name="sex")
    client.force_login(users[Role.ADMIN])
    url = reverse("admin:annotations_attributegroup_change", args=[group.pk])
    values = list(group.values.order_by("position"))
    form = {
        "object_type": group.object_type_id,
        "name": "sex",
        "exclusive": "on",
        "phrase": "is {value}",
        "phrases": "{}",
        "position": group.position,
        "values-TOTAL_FORMS": 2,
        "values-INITIAL_FORMS": 2,
        "values-MIN_NUM_FORMS": 0,
        "values-MAX_NUM_FORMS": 1000,
        # Renaming "female" to "child" duplicates a value of the age group of the same type.
        "values-0-id": values[0].pk,
        "values-0-group": group.pk,
        "values-0-name": "male",
        "values-0-position": 0,
        "values-1-id": values[1].pk,
        "values-1-group": group.pk,
        "values-1-name": "child",
        "values-1-position": 1,
    }
    response = client.post(url, form, follow=True)
    assert "duplicate attribute value" in response.content.decode()
    assert sorted(group.values.values_list("name", flat=True)) == ["female", "male"]
    form["values-1-name"] = "woman"
    client.post(url, form)
    assert sorted(group.values.values_list("name", flat=True)) == ["male", "woman"]
    vocabulary.refresh_from_db()
    assert "woman" in core_vocabulary(vocabulary).object_type("person").attributes


def test_a_changed_shipped_vocabulary_installs_as_a_new_version_and_leaves_data_valid(tmp_path):
    """The shipped urban-street document gained the person motion "riding" (issue 20). Where the earlier
    document is installed and in use, installing the default again adds version 2 with "riding";
    version 1, its collection and its annotations are untouched (decision 0002)."""
    earlier = default_document()
    motion = next(g for g in earlier["types"]["person"]["attribute_groups"] if g["name"] == "motion")
    assert "riding" in motion["values"], "the shipped vocabulary describes a cyclist"
    motion["values"].remove("riding")
    shipped_before = tmp_path / "urban-street.json"
    shipped_before.write_text(json.dumps(earlier))
    first, created = vocabulary_install_default(path=shipped_before)
    assert created and first.version == 1
    collection = CollectionFactory(vocabulary=first)
    ImageFactory(collection=collection)
    annotator = UserFactory(role=Role.ANNOTATOR)
    image = annotation_next(collection=collection, user=annotator)
    annotation_save(
        image=image, user=annotator, document={"objects": [SCENE["objects"][0]], "relationships": []}
    )

    second, created = vocabulary_install_default()
    assert created and (second.name, second.version) == ("urban-street", 2)
    assert "riding" in core_vocabulary(second).object_type("person").attributes
    assert "riding" not in core_vocabulary(first).object_type("person").attributes
    collection.refresh_from_db()
    assert collection.vocabulary_id == first.pk
    assert sorted(image_annotation(image=image)["objects"][0]["attributes"]) == sorted(
        SCENE["objects"][0]["attributes"]
    )
    assert vocabulary_install_default() == (second, False)
