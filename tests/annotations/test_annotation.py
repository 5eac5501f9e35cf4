"""Saving an annotation: every rule of the vocabulary checked, ids in stored order, all or nothing, and
only by the holder of the image's lease."""

from __future__ import annotations

import copy

import pytest

from annotations.models import ObjectAnnotation, RelationshipAnnotation
from tests.annotations.conftest import SCENE

pytestmark = pytest.mark.django_db


def url(image) -> str:
    return f"/api/v1/images/{image.pk}/annotation/"


def test_a_valid_annotation_is_stored_with_ids_in_stored_order(api, annotator, leased_image):
    scene = copy.deepcopy(SCENE)
    scene["objects"][2]["bbox"] = [600, 450, 100, 100]  # runs off the 640x480 image: clipped
    response = api.as_user(annotator).put(url(leased_image), scene, format="json")
    assert response.status_code == 200, response.content
    record = response.json()
    assert record["image"] == leased_image.original_name
    assert (record["width"], record["height"]) == (640, 480)
    assert [o["id"] for o in record["objects"]] == ["o1", "o2", "o3"]
    assert record["objects"][0]["attributes"] == [
        "female",
        "adult",
        "walking",
        "on sidewalk",
    ]  # vocabulary order
    assert record["objects"][1] == {
        "id": "o2",
        "type": "person",
        "bbox": [100.0, 20.0, 30.0, 60.0],
        "attributes": [],
        "attributes_known": False,
    }
    assert record["objects"][2]["bbox"] == [600.0, 450.0, 40.0, 30.0]
    assert record["relationships"] == [
        {"subject": "o1", "predicate": "closer than", "object": "o3"},
        {"subject": "o1", "predicate": "talking", "object": "o2"},
    ]
    assert record.pop("lease_expires_at")  # the save renewed the lease and says until when
    assert api.as_user(annotator).get(url(leased_image)).json() == record


def test_a_symmetric_relationship_is_stored_once(api, annotator, leased_image):
    scene = copy.deepcopy(SCENE)
    scene["relationships"] = [
        {"subject": "b", "predicate": "talking", "object": "a"},
        {"subject": "a", "predicate": "talking", "object": "b"},
    ]
    response = api.as_user(annotator).put(url(leased_image), scene, format="json")
    assert response.json()["relationships"] == [{"subject": "o1", "predicate": "talking", "object": "o2"}]
    assert RelationshipAnnotation.objects.count() == 1


def broken(change) -> dict:
    scene = copy.deepcopy(SCENE)
    change(scene)
    return scene


def _set(path, value):
    def change(scene):
        target = scene
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


RULES = {
    "box outside the image": (
        _set(["objects", 0, "bbox"], [700, 500, 20, 20]),
        "objects[0].bbox",
        "outside",
        "box_outside_image",
    ),
    "box degenerate after clipping": (
        _set(["objects", 0, "bbox"], [639.5, 10, 20, 20]),
        "objects[0].bbox",
        "outside",
        "box_outside_image",
    ),
    "box of zero width": (
        _set(["objects", 0, "bbox"], [10, 10, 0, 20]),
        "objects[0].bbox",
        "positive",
        "bad_box",
    ),
    "unknown type": (
        _set(["objects", 0, "type"], "dog"),
        "objects[0].type",
        "unknown object type",
        "unknown_object_type",
    ),
    "attribute of another type": (
        _set(["objects", 0, "attributes"], ["parked"]),
        "objects[0].attributes",
        "not an attribute of person",
        "unknown_attribute",
    ),
    "two values of an exclusive group": (
        _set(["objects", 0, "attributes"], ["walking", "running"]),
        "objects[0].attributes",
        "exclusive group",
        "exclusive_attributes",
    ),
    "a value listed although its exclusive group is unknown": (
        _set(["objects", 1, "attributes"], ["male"]),
        "objects[1].attributes",
        "yet its group 'sex' is unknown",
        "invalid_scene",
    ),
    "an unknown group the type does not have": (
        _set(["objects", 1, "unknown"], ["tone"]),
        "objects[1].unknown",
        "not an attribute group of person",
        "unknown_attribute",
    ),
    "known attributes with unknown groups": (
        _set(["objects", 0, "unknown"], ["sex"]),
        "objects[0].unknown",
        "attributes_known is true, yet some groups are unknown",
        "invalid_scene",
    ),
    "a flag that does not exist": (
        _set(["objects", 0, "flags"], ["blurry"]),
        "objects[0].flags",
        "is not a flag",
        "invalid_scene",
    ),
    "attribute listed twice": (
        _set(["objects", 0, "attributes"], ["male", "male"]),
        "objects[0].attributes",
        "listed twice",
        "duplicate_attribute",
    ),
    "duplicate object id": (
        _set(["objects", 1, "id"], "a"),
        "objects[1].id",
        "duplicate object id",
        "duplicate_object_id",
    ),
    "relationship not allowed for the pair": (
        _set(["relationships", 0, "predicate"], "driving or riding"),
        "relationships[0]",
        "does not relate",
        "relationship_not_allowed",
    ),
    "self relationship": (
        _set(["relationships", 0, "object"], "a"),
        "relationships[0]",
        "to itself",
        "self_relationship",
    ),
    "unknown object in a relationship": (
        _set(["relationships", 0, "object"], "zz"),
        "relationships[0].object",
        "no object with id",
        "unknown_object",
    ),
    "unknown relationship": (
        _set(["relationships", 0, "predicate"], "hugging"),
        "relationships[0].predicate",
        "unknown relationship",
        "unknown_relationship",
    ),
}


@pytest.mark.parametrize("rule", RULES, ids=list(RULES))
def test_every_rule_is_a_400_that_changes_nothing(api, annotator, leased_image, rule):
    change, where, words, code = RULES[rule]
    client = api.as_user(annotator)
    before = client.put(url(leased_image), SCENE, format="json").json()
    before.pop("lease_expires_at")
    response = client.put(url(leased_image), broken(change), format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == code
    assert list(body["fields"]) == [where] and words in body["fields"][where][0]
    assert body["message"].startswith(f"{where}: ") and words in body["message"]
    assert client.get(url(leased_image)).json() == before
    assert ObjectAnnotation.objects.filter(image=leased_image).count() == 3


def test_a_malformed_body_is_a_400_that_changes_nothing(api, annotator, leased_image):
    client = api.as_user(annotator)
    response = client.put(
        url(leased_image), {"objects": [{"id": "a", "type": "person", "bbox": "wide"}]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert response.json()["fields"] == {"objects[0].bbox": ['Expected a list of items but got type "str".']}
    assert not ObjectAnnotation.objects.exists()


def test_saving_twice_replaces_the_annotation(api, annotator, leased_image):
    client = api.as_user(annotator)
    client.put(url(leased_image), SCENE, format="json")
    smaller = {"objects": [SCENE["objects"][2]], "relationships": []}
    record = client.put(url(leased_image), smaller, format="json").json()
    assert [o["type"] for o in record["objects"]] == ["vehicle"]
    assert ObjectAnnotation.objects.count() == 1
    assert not RelationshipAnnotation.objects.exists()


def test_only_the_lease_holder_saves(api, other_annotator, leased_image):
    response = api.as_user(other_annotator).put(url(leased_image), SCENE, format="json")
    assert response.status_code == 409
    assert response.json()["code"] == "lease_not_held"
    assert not ObjectAnnotation.objects.exists()


def test_an_image_in_review_cannot_be_saved(api, annotator, leased_image):
    client = api.as_user(annotator)
    client.put(url(leased_image), SCENE, format="json")
    assert client.post(f"/api/v1/images/{leased_image.pk}/submit/").status_code == 200
    response = client.put(url(leased_image), {"objects": []}, format="json")
    assert response.status_code == 409
    assert response.json()["code"] == "wrong_stage"
    assert ObjectAnnotation.objects.count() == 3


def test_submit_sends_the_image_to_review_and_ends_the_lease(api, annotator, leased_image):
    client = api.as_user(annotator)
    client.put(url(leased_image), SCENE, format="json")
    image = client.post(f"/api/v1/images/{leased_image.pk}/submit/").json()
    assert image["stage"] == "review"
    assert image["lease_holder"] is None
    assert image["annotator"]["username"] == annotator.username


def test_a_draft_may_leave_an_exclusive_group_empty_but_a_submitted_annotation_may_not(
    api, annotator, leased_image
):
    client = api.as_user(annotator)
    draft = copy.deepcopy(SCENE)
    draft["objects"][2]["attributes"] = ["car", "parked"]  # no tone, no visible tires yet
    assert client.put(url(leased_image), draft, format="json").status_code == 200
    refused = client.post(f"/api/v1/images/{leased_image.pk}/submit/")
    assert refused.status_code == 400
    body = refused.json()
    assert body["code"] == "incomplete_attributes"
    assert list(body["fields"]) == ["objects[2].attributes"]
    # The third box is the first vehicle: named as the page numbers it, not by a stored id.
    assert "vehicle 1 has no tone, visible tires" in body["message"]
    # Every incomplete object is named at once, not only the first.
    draft["objects"][0]["attributes"] = ["walking"]
    assert client.put(url(leased_image), draft, format="json").status_code == 200
    body = client.post(f"/api/v1/images/{leased_image.pk}/submit/").json()
    assert list(body["fields"]) == ["objects[0].attributes", "objects[2].attributes"]
    assert body["fields"]["objects[0].attributes"] == ["has no sex, age, place"]
    assert "2 objects need attributes: person 1 has no sex, age, place; vehicle 1 has no" in body["message"]
    assert client.get(f"/api/v1/images/{leased_image.pk}/").json()["stage"] == "annotate"
    # An object whose attributes are unknown (o2) needs none; completing o3 is enough.
    assert client.put(url(leased_image), SCENE, format="json").status_code == 200
    assert client.post(f"/api/v1/images/{leased_image.pk}/submit/").status_code == 200


def test_members_read_annotations_and_outsiders_do_not_see_them(
    api, annotator, users, outsider, leased_image
):
    from accounts.roles import Role

    api.as_user(annotator).put(url(leased_image), SCENE, format="json")
    assert api.as_user(users[Role.OPERATOR]).get(url(leased_image)).status_code == 200
    response = api.as_user(outsider).get(url(leased_image))
    assert response.status_code == 404
    assert response.json()["code"] == "image_not_found"


def test_what_an_import_said_of_a_box_survives_a_save(api, annotator, leased_image):
    """The annotator's page sends back the groups still unknown, the flags and the source's identity as
    they came (issue 37: a save must not lose them, nor the export after it)."""
    scene = copy.deepcopy(SCENE)
    scene["objects"][1] |= {
        "attributes": ["male", "wearing a hat"],
        "unknown": ["age", "motion", "place", "carrying", "hat", "interacting"],
        "flags": ["occluded", "depiction"],
        "source": {"id": "1001", "names": ["Mann "], "synsets": ["man.n.01"]},
    }
    saved = api.as_user(annotator).put(url(leased_image), scene, format="json")
    assert saved.status_code == 200, saved.content
    read = api.as_user(annotator).get(url(leased_image)).json()
    assert read["objects"][1] == {
        "id": "o2",
        "type": "person",
        "bbox": [100.0, 20.0, 30.0, 60.0],
        "attributes": ["male", "wearing a hat"],
        "attributes_known": False,
        "unknown": ["age", "motion", "place", "carrying", "hat", "interacting"],
        "flags": ["occluded", "depiction"],
        "source": {"id": "1001", "names": ["Mann "], "synsets": ["man.n.01"]},
    }
    assert "unknown" not in read["objects"][0] and "source" not in read["objects"][0]
