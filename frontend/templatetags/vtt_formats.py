"""The registered scene formats (datasets.formats), for the pages that offer imports and exports."""

from __future__ import annotations

from django import template

from datasets.formats import SceneFormat
from datasets.formats import scene_formats as registered

register = template.Library()


@register.simple_tag
def scene_formats() -> tuple[SceneFormat, ...]:
    return registered()
