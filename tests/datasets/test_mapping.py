"""The mapping file (checked whole, every problem with its place), the rule that what a source does not
say is unknown and never false, the proposal of a first mapping from the data's frequencies, and the
reading guard against deep nesting."""

from __future__ import annotations

import io
import json
import random

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command

from annotations.selectors.vocabularies import core_vocabulary
from datasets.formats.mapping import MappingInvalid, identity_mapping, load_mapping
from datasets.formats.open_scenes import OpenObject, OpenScene
from datasets.formats.open_vocabulary import SceneMapper
from datasets.formats.records import ImportReport
from datasets.formats.streaming import DepthGuard
from datasets.models import ImportJob
from datasets.services.creation import import_create
from kernel import safejson
from kernel.vocabulary import parse_vocabulary
from tests.annotations.images import upload
from tests.datasets.formats import FIXTURES, MAPPING, zipped
from vtt_site.errors import ApplicationError

PERSON_ONLY = parse_vocabulary(
    {
        "name": "people",
        "types": {
            "person": {
                "attribute_groups": [
                    {"name": "sex", "exclusive": True, "values": ["male", "female"]},
                    {"name": "hat", "exclusive": False, "values": ["wearing a hat"]},
                ]
            }
        },
        "relationships": [],
    }
)


def mapped(attributes: list[str], complete: bool, names=("person",)) -> dict:
    mapping = identity_mapping(PERSON_ONLY)
    scene = OpenScene("a.jpg", 100, 100)
    scene.add(OpenObject("1", list(names), [], (1, 1, 10, 10), attributes))
    return SceneMapper(mapping, PERSON_ONLY, complete, ImportReport()).record(scene)["objects"][0]


@pytest.mark.parametrize(
    ("attributes", "complete", "stored", "unknown"),
    [
        ([], True, [], ["sex", "hat"]),  # even a complete source says nothing of an object it gives nothing
        ([], False, [], ["sex", "hat"]),  # the source says nothing about this object's attributes
        (["male"], False, ["male"], ["hat"]),  # the sex is kept; the hat is not said: unknown, not "no"
        (["male"], True, ["male"], []),  # complete: no hat means no hat
        (["male", "wearing a hat"], False, ["male", "wearing a hat"], []),  # every group said
        (
            ["wearing a hat"],
            True,
            ["wearing a hat"],
            ["sex"],
        ),  # an exclusive group is never filled by silence
        (["male", "female"], True, [], ["sex"]),  # a contradiction is unknown, not a pick
    ],
)
def test_what_a_source_does_not_say_is_unknown_never_false(attributes, complete, stored, unknown):
    """Group by group: what the source states is kept, what it does not is unknown (issue 37: before,
    one silent group threw away every attribute of the object)."""
    obj = mapped(attributes, complete)
    assert (obj["attributes"], obj.get("unknown", []), obj["attributes_known"]) == (
        stored,
        unknown,
        not unknown,
    )


def test_what_a_name_implies_is_kept_and_the_rest_asked():
    """`implies` applies whatever else the source leaves unsaid: man -> male and adult."""
    mapping = identity_mapping(PERSON_ONLY)
    mapping.names["man"] = ("person", ("male",))
    scene = OpenScene("a.jpg", 100, 100)
    scene.add(OpenObject("1", ["man"], [], (1, 1, 10, 10), []))
    obj = SceneMapper(mapping, PERSON_ONLY, False, ImportReport()).record(scene)["objects"][0]
    assert (obj["attributes"], obj["unknown"]) == (["male"], ["hat"])


def test_a_mapping_is_checked_whole_and_every_problem_has_its_place(collection):
    text = """
types:
  person:
    names: [man, on]
    implies:
      man: [male, female]
      boy: [tall]
  dog:
    names: [dog]
  vehicle:
    names: [man]
    colour: [red]
attributes:
  vehicle: {white: pale}
relationships:
  riding: flying
  behind: {relationship: closer than, reverse: maybe}
drop:
  names: [tree, 3]
extra: {}
"""
    with pytest.raises(MappingInvalid) as refused:
        load_mapping(text.encode(), core_vocabulary(collection.vocabulary))
    assert refused.value.messages() == [
        "unknown key 'extra'; known: types, attributes, relationships, drop",
        "types.person.implies.man[1]: 'male' and 'female' are both in exclusive group 'sex'",
        "types.person.implies.boy[0]: 'tall' is not an attribute of person",
        "types.dog: 'dog' is not a type of the vocabulary (person, vehicle)",
        "types.vehicle: unknown key 'colour'; known: names, synsets, implies",
        "types.vehicle.names[0]: 'man' is mapped to person too",
        "attributes.vehicle.white: 'pale' is not an attribute of vehicle",
        "relationships.riding: 'flying' is not a relationship of the vocabulary",
        "relationships.behind.reverse: must be true or false",
        "drop.names: must be a list of names",
    ]


def test_yaml_words_that_look_like_booleans_are_names_and_json_is_accepted_too(collection):
    vocabulary = core_vocabulary(collection.vocabulary)
    mapping = load_mapping(
        b"relationships:\n  on: closer than\ndrop:\n  predicates: [off, yes, no]\n", vocabulary
    )
    assert mapping.relationships["on"].relationship == "closer than"
    assert mapping.drop_predicates == {"off", "yes", "no"}
    as_json = json.dumps({"types": {"person": {"names": ["Man "], "implies": {"Man": ["male"]}}}}).encode()
    assert load_mapping(as_json, vocabulary).type_of(["MAN"], []) == ("person", ("male",), "man")
    for bad, message in (
        (b"types: [", "not valid YAML at line 1"),
        (b"\xff", "not UTF-8"),
        (b"- 1", "a mapping is"),
    ):
        with pytest.raises(MappingInvalid) as refused:
            load_mapping(bad, vocabulary)
        assert message in refused.value.messages()[0]


@pytest.mark.django_db
def test_a_bad_mapping_is_refused_when_the_import_is_asked_for_and_nothing_is_stored(
    api, reviewer, collection
):
    client = api.as_user(reviewer)
    archive = zipped(FIXTURES / "vg" / "scene_graphs")
    url = f"/api/v1/collections/{collection.pk}/imports/"
    response = client.post(
        url,
        {
            "file": upload("vg.zip", archive),
            "format": "vg",
            "mapping": upload("m.yaml", b"types:\n  dog: {}\n"),
        },
        format="multipart",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "mapping_invalid"
    assert body["fields"]["mapping"] == ["types.dog: 'dog' is not a type of the vocabulary (person, vehicle)"]
    response = client.post(
        url,
        {
            "file": upload("s.jsonl", b"{}\n"),
            "format": "jsonl",
            "mapping": upload("m.yaml", MAPPING.read_bytes()),
        },
        format="multipart",
    )
    assert (response.status_code, list(response.json()["fields"])) == (400, ["mapping"])
    response = client.post(
        url,
        {"file": upload("vg.zip", archive), "format": "vg", "complete": "false", "mark_reviewed": "true"},
        format="multipart",
    )
    assert (response.status_code, list(response.json()["fields"])) == (400, ["mark_reviewed"])
    assert not ImportJob.objects.exists()
    with pytest.raises(ApplicationError):
        import_create(
            collection=collection,
            format="gqa",
            file=ContentFile(b"{}", name="g.json"),
            mapping=ContentFile(b"relationships: {x: y}", name="m.yaml"),
            start=False,
        )
    assert not ImportJob.objects.exists()


@pytest.mark.django_db
def test_the_proposal_gives_the_top_names_per_type_and_candidate_exclusive_groups(
    collection, tmp_path, capsys
):
    out = tmp_path / "proposed.yaml"
    call_command(
        "propose_mapping",
        str(FIXTURES / "gqa" / "proposal.json"),
        collection=collection.name,
        format="gqa",
        out=str(out),
    )
    text = out.read_text()
    vocabulary = core_vocabulary(collection.vocabulary)
    proposed = load_mapping(text.encode(), vocabulary)  # as proposed, it is a mapping that loads
    assert {name: rule[0] for name, rule in proposed.names.items()} == {
        "person": "person",
        "car": "vehicle",
        "bus": "vehicle",
        "truck": "vehicle",
    }
    assert proposed.names["truck"] == ("vehicle", ("truck",))
    assert proposed.relationships["closer than"].relationship == "closer than"
    assert proposed.drop_names == {"tree", "sky", "man"}
    assert '- "person"  # 8 objects' in text  # "Person" and "person" are one name
    assert (
        "# candidate exclusive group (seldom on one person together): standing 3, walking 3, sitting 2"
        in text
    )
    assert "# candidate exclusive group (seldom on one vehicle together): white 3, black 2, red 2" in text
    groups = [line for line in text.splitlines() if "# candidate exclusive group" in line]
    assert len(groups) == 2 and not any("young" in line for line in groups)  # young goes with all of them
    assert '- "in front of"  # 1 time' in text


class _Chunks(io.RawIOBase):
    """A file that hands its bytes over `size` at a time, so a string can straddle two reads."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data, self.size, self.at = data, size, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        piece = self.data[self.at : self.at + min(self.size, len(buffer))]
        buffer[: len(piece)] = piece
        self.at += len(piece)
        return len(piece)


def _depth(value) -> int:
    if isinstance(value, dict | list):
        children = value.values() if isinstance(value, dict) else value
        return 1 + max((_depth(child) for child in children), default=0)
    return 0


def test_the_depth_guard_counts_brackets_outside_strings_even_across_reads():
    """Chunks with a backslash take the string-by-string path, the others the quote-parity one; small
    reads mix the two within one document, and strings hold brackets with and without escapes."""
    generator = random.Random(7)

    def nested(level: int):
        if level == 0 or generator.random() < 0.25:
            return generator.choice(['a"[{', "\\", '"]', "[]]\\\\", "x", 3, "{[}", "]]"])
        if generator.random() < 0.5:
            return [nested(level - 1) for _ in range(generator.randint(0, 3))]
        return {f'k{i}"[': nested(level - 1) for i in range(generator.randint(0, 3))}

    for _ in range(400):
        value = nested(7)
        data, depth = json.dumps(value).encode(), _depth(value)
        for size in (1, 2, 5):
            for limit in {depth, max(depth - 1, 0)}:
                guard = DepthGuard(_Chunks(data, size), limit)
                try:
                    while guard.read(3):
                        pass
                    refused = False
                except safejson.UnsafeJSON:
                    refused = True
                assert refused == (depth > limit), (data, size, limit)
