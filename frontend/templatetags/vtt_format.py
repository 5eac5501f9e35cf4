"""Formatting filters: proportions as percentages, Markdown as sanitized HTML."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from frontend.markdown import markdown_html

register = template.Library()


@register.filter
def percent(value, digits: int = 0) -> str:
    """0.4567 -> "46%" (a dash when there is no value)."""
    if value is None or value == "":
        return "\u2013"
    return f"{float(value):.{int(digits)}%}"


@register.filter
def markdown(text: str) -> SafeString:
    """An admin's Markdown (a collection's description) as sanitized HTML (frontend.markdown)."""
    return markdown_html(text or "")
