"""Mark as reviewed only a source declared complete (issue 37): a Visual Genome, GQA or Open Images
source is partial unless the importer says otherwise, and accepting one as it is would turn everything
it does not say into "no". The command, the API and the import form refuse it, name the field, and
store nothing; with the source declared complete it imports, accepted."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from annotations.models import Image, Stage
from datasets.models import ImportJob
from tests.annotations.images import upload
from tests.datasets.formats import FIXTURES, MAPPING, zipped

pytestmark = pytest.mark.django_db

VG = FIXTURES / "vg" / "scene_graphs"
REFUSAL = "Mark as reviewed needs a complete source, and this Visual Genome source is not declared complete"


def test_the_command_refuses_mark_reviewed_on_a_partial_source_unless_it_is_declared_complete(collection):
    errors = io.StringIO()
    options = {"collection": collection.name, "format": "vg", "mapping": str(MAPPING), "mark_reviewed": True}
    with pytest.raises(CommandError, match=REFUSAL):
        call_command("import_scenes", str(VG), stdout=io.StringIO(), stderr=errors, **options)
    assert errors.getvalue() == "--mark-reviewed: Only with a source declared complete.\n"
    assert not ImportJob.objects.exists() and not Image.objects.exists()

    call_command("import_scenes", str(VG), complete=True, stdout=io.StringIO(), **options)
    assert set(Image.objects.values_list("stage", flat=True)) == {Stage.ACCEPTED}


def test_the_api_refuses_mark_reviewed_on_a_partial_source_with_the_field_named(api, reviewer, collection):
    client = api.as_user(reviewer)
    url = f"/api/v1/collections/{collection.pk}/imports/"
    archive = zipped(VG)
    response = client.post(
        url,
        {"file": upload("vg.zip", archive), "format": "vg", "mark_reviewed": "true"},
        format="multipart",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["message"].startswith(REFUSAL)
    assert body["fields"] == {"mark_reviewed": ["Only with a source declared complete."]}
    assert not ImportJob.objects.exists()
    response = client.post(
        url,
        {"file": upload("vg.zip", archive), "format": "vg", "mark_reviewed": "true", "complete": "true"},
        format="multipart",
    )
    assert response.status_code == 202 and response.json()["complete"] is True


def test_the_import_form_refuses_mark_reviewed_on_a_partial_source(client, reviewer, collection):
    client.force_login(reviewer)
    data = {"file": upload("vg.zip", zipped(VG)), "format": "vg", "split": "train", "mark_reviewed": "on"}
    response = client.post(f"/collections/{collection.pk}/import/", data, follow=True)
    page = response.content.decode()
    assert response.status_code == 200 and REFUSAL in page and "Only with a source declared complete." in page
    assert not ImportJob.objects.exists()
