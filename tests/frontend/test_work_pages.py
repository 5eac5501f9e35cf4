"""Taking the next image of a queue from the pages, and who gets which page for an image."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.roles import Role
from annotations.models import Image, Stage
from annotations.services.annotation import annotation_save, annotation_submit
from annotations.services.images import image_upload
from annotations.services.queues import annotation_next
from datasets.services.creation import import_create
from datasets.services.run import import_run
from tests.annotations.images import image_bytes
from tests.factories import ImageFactory

pytestmark = pytest.mark.django_db

SCENE = {
    "objects": [
        {
            "id": "a",
            "type": "person",
            "bbox": [10, 20, 30, 60],
            "attributes": ["female", "adult", "standing still", "on sidewalk"],
        },
        {
            "id": "b",
            "type": "vehicle",
            "bbox": [100, 50, 200, 90],
            "attributes": ["bus", "light-colored", "moving", "more than two"],
        },
    ],
    "relationships": [{"subject": "a", "predicate": "closer than", "object": "b"}],
}


def page_data(response) -> dict:
    match = re.search(
        r'<script id="page-data" type="application/json">(.*?)</script>', response.content.decode(), re.S
    )
    return json.loads(match.group(1))


def test_annotate_next_leases_an_image_and_opens_the_editor_with_what_it_needs(client, users, collection):
    annotator = users[Role.ANNOTATOR]
    image = ImageFactory(collection=collection, width=800, height=600)
    client.force_login(annotator)
    response = client.post(f"/collections/{collection.pk}/annotate/next/")
    assert response.status_code == 302 and response["Location"] == f"/images/{image.pk}/annotate/"
    image.refresh_from_db()
    assert image.lease_holder == annotator and image.lease_expires_at is not None

    editor = client.get(response["Location"])
    data = page_data(editor)
    assert data["mode"] == "annotate"
    assert data["image"] | {"lease_expires_at": None} == data["image"] | {
        "id": image.pk,
        "width": 800,
        "height": 600,
        "file_url": None,
        "stage": "annotate",
        "lease_expires_at": None,
    }
    assert data["annotation"]["objects"] == [] and list(data["vocabulary"]["types"]) == ["person", "vehicle"]
    assert data["urls"]["annotation"] == f"/api/v1/images/{image.pk}/annotation/"
    assert b"Keyboard shortcuts" in editor.content and b"frontend/js/annotate.js" in editor.content


def test_nothing_waiting_returns_to_the_collection_with_a_message(client, users, collection):
    client.force_login(users[Role.ANNOTATOR])
    response = client.post(f"/collections/{collection.pk}/annotate/next/", follow=True)
    assert response.redirect_chain[-1][0] == f"/collections/{collection.pk}/"
    assert "No image of Street scenes is waiting to be annotated." in response.content.decode()


def test_the_editor_of_an_image_someone_else_holds_is_the_read_only_view(
    client, users, collection, make_user
):
    image = ImageFactory(collection=collection)
    annotation_next(collection=collection, user=users[Role.ANNOTATOR])
    client.force_login(users[Role.REVIEWER])  # a member, but not the holder
    response = client.get(f"/images/{image.pk}/")
    assert response.status_code == 200 and page_data(response)["mode"] == "view"
    assert b"held by annotator" in response.content and b'data-role="decision"' not in response.content
    client.force_login(users[Role.ANNOTATOR])
    assert client.get(f"/images/{image.pk}/")["Location"] == f"/images/{image.pk}/annotate/"


def test_annotate_page_without_the_lease_redirects_to_the_view(client, users, collection):
    image = ImageFactory(collection=collection)
    client.force_login(users[Role.ANNOTATOR])
    response = client.get(f"/images/{image.pk}/annotate/", follow=True)
    assert response.redirect_chain == [(f"/images/{image.pk}/", 302)]
    assert "Annotate next" in response.content.decode()


def test_review_next_opens_the_review_page_read_only_with_accept_and_send_back(client, users, collection):
    annotator, reviewer = users[Role.ANNOTATOR], users[Role.REVIEWER]
    image = ImageFactory(collection=collection)
    annotation_next(collection=collection, user=annotator)
    annotation_save(image=image, user=annotator, document=SCENE)
    annotation_submit(image=image, user=annotator)

    client.force_login(reviewer)
    response = client.post(f"/collections/{collection.pk}/review/next/")
    assert response["Location"] == f"/images/{image.pk}/review/"
    page = client.get(response["Location"])
    data = page_data(page)
    assert data["mode"] == "review" and data["annotation"]["relationships"] == [
        {"subject": "o1", "predicate": "closer than", "object": "o2"}
    ]
    assert b'data-testid="accept"' in page.content and b'data-testid="send-back"' in page.content
    assert b"annotated by annotator" in page.content
    assert Image.objects.get(pk=image.pk).lease_holder == reviewer


def test_queues_refuse_roles_that_do_not_work_them(client, users, collection):
    ImageFactory(collection=collection, stage=Stage.REVIEW)
    client.force_login(users[Role.ANNOTATOR])
    assert client.post(f"/collections/{collection.pk}/review/next/").status_code == 403
    client.force_login(users[Role.OPERATOR])
    assert client.post(f"/collections/{collection.pk}/annotate/next/").status_code == 403
    assert client.get(f"/collections/{collection.pk}/annotate/next/").status_code == 405  # never on a GET


def test_an_imported_image_without_pixels_says_so_on_the_review_page(client, users, collection):
    job = import_create(
        collection=collection,
        format="jsonl",
        file=SimpleUploadedFile(
            "scenes.jsonl",
            json.dumps({"image": "imported.jpg", "width": 640, "height": 480, **SCENE}).encode(),
        ),
        start=False,
    )
    import_run(job_id=job.pk)
    client.force_login(users[Role.REVIEWER])
    response = client.post(f"/collections/{collection.pk}/review/next/")
    page = client.get(response["Location"]).content.decode()
    assert 'data-testid="no-pixels"' in page and "imported.jpg came in by an import" in page
    assert (
        "empty 640\N{MULTIPLICATION SIGN}480 area" in page
        and 'aria-label="imported.jpg (no pixels) with its boxes"' in page
    )

    uploaded = image_upload(
        collection=collection, files=[SimpleUploadedFile("shot.png", image_bytes("PNG"))]
    ).created[0]
    assert 'data-testid="no-pixels"' not in client.get(f"/images/{uploaded.pk}/").content.decode()
