"""The vision-language-models guide's calls work as written (issue 46, item 3): its section 2 registers a
seeing and a blind system and makes a token for each, before any system has a token. Replayed in order
with the token of one's own the section says to send, every call succeeds: the second token's name is
not refused as taken, and the section says how the calls are authenticated."""

from __future__ import annotations

import json
import re

import pytest

from accounts.roles import Role
from accounts.services import token_create
from evaluation.models import VisionSystem
from tests.serving import ROOT

pytestmark = pytest.mark.django_db

GUIDE = ROOT / "docs" / "guides" / "vision-language-models.md"
CALL = re.compile(r"^POST (/api/v1/\S+)\s+(\{.*?\})", re.M)


def section_two() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return text[text.index("## 2.") : text.index("## 3.")]


def test_the_guides_registration_calls_succeed_in_order_with_a_token_of_ones_own(make_user, token_client):
    section = section_two()
    assert "Authorization: Token" in section and "API tokens" in section
    owner = make_user(Role.VISION_SYSTEM_OWNER)
    api = token_client(token_create(user=owner, name="my own")[1])
    calls = CALL.findall(section)
    registrations = [json.loads(body) for path, body in calls if not path.endswith("/tokens/")]
    tokens = [json.loads(body) for path, body in calls if path.endswith("/tokens/")]
    assert len(registrations) == len(tokens) == 2, "a token for each system the section registers"
    systems = []
    for body in registrations:
        response = api.post("/api/v1/evaluation/systems/", body, format="json")
        assert response.status_code == 201, response.json()
        systems.append(response.json()["id"])
    for system_id, body in zip(systems, tokens, strict=True):
        response = api.post(f"/api/v1/evaluation/systems/{system_id}/tokens/", body, format="json")
        assert response.status_code == 201, response.json()
    assert sorted(VisionSystem.objects.filter(owner=owner).values_list("shown", flat=True)) == [
        "image",
        "text",
    ]
