"""Names in either Unicode normal form (issue 37): a mapping written in one form (NFD: n and a combining
tilde) and a download in the other (NFC: ñ) meet, for names, attribute names, predicates and the
vocabulary's values the mapping names, through a real import."""

from __future__ import annotations

import io
import json
import unicodedata
import zipfile

import pytest

from datasets.models import ImportJob
from tests.datasets.formats import rows, run_import
from tests.factories import CollectionFactory, VocabularyFactory

pytestmark = pytest.mark.django_db

# A vocabulary of its own, whose values are not ASCII: the mapping's values must meet them too.
PERSONAS = {
    "name": "personas",
    "types": {
        "persona": {
            "attribute_groups": [
                {"name": "sexo", "exclusive": True, "values": ["mujer", "hombre"]},
                {"name": "edad", "exclusive": True, "values": ["niño", "adulto"]},
            ]
        }
    },
    "relationships": [
        {
            "name": "más cerca que",
            "subject_types": ["persona"],
            "object_types": ["persona"],
            "symmetric": False,
        }
    ],
}

MAPPING = """\
types:
  persona:
    names: [Señora, Muchacho]
    implies:
      Señora: [mujer, adulto]
      Muchacho: [hombre]
attributes:
  persona: {pequeño: niño}
relationships:
  detrás de: {relationship: más cerca que, reverse: true}
"""


def download(form: str) -> bytes:
    """A Visual Genome zip: a señora behind a small muchacho, every name in the given normal form."""

    def said(text: str) -> str:
        return unicodedata.normalize(form, text)

    objects = [
        {"object_id": 1, "x": 10, "y": 10, "w": 40, "h": 90, "names": [said("señora")]},
        {
            "object_id": 2,
            "x": 90,
            "y": 20,
            "w": 30,
            "h": 60,
            "names": ["muchacho"],
            "attributes": [said("Pequeño")],
        },
    ]
    graphs = [
        {
            "image_id": 7,
            "objects": objects,
            "relationships": [{"predicate": said("detrás de"), "subject_id": 1, "object_id": 2}],
        }
    ]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("image_data.json", json.dumps([{"image_id": 7, "width": 200, "height": 150}]))
        archive.writestr("scene_graphs.json", json.dumps(graphs, ensure_ascii=False))
    return buffer.getvalue()


@pytest.mark.parametrize(("mapping_form", "data_form"), [("NFD", "NFC"), ("NFC", "NFD")])
def test_a_mapping_and_a_download_in_other_normal_forms_still_match(mapping_form, data_form):
    mapping = unicodedata.normalize(mapping_form, MAPPING)
    assert mapping != unicodedata.normalize(data_form, MAPPING)
    collection = CollectionFactory(vocabulary=VocabularyFactory(name="personas", document=PERSONAS))

    job = run_import(collection, "vg", download(data_form), mapping.encode(), complete=True)

    assert job.status == ImportJob.Status.DONE, job.errors
    (row,) = rows(collection)
    objects = [(o["id"], o["type"], o["attributes"], o["attributes_known"]) for o in row["objects"]]
    assert objects == [
        ("o1", "persona", ["mujer", "adulto"], True),
        ("o2", "persona", ["hombre", "niño"], True),
    ]
    # "la señora está detrás del muchacho": the muchacho is closer than the señora
    assert row["relationships"] == [{"subject": "o2", "predicate": "más cerca que", "object": "o1"}]
    assert all(unicodedata.is_normalized("NFC", value) for o in row["objects"] for value in o["attributes"])
