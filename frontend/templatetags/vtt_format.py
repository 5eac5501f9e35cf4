"""Formatting filters for the truthing pages: proportions as percentages."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def percent(value, digits: int = 0) -> str:
    """0.4567 -> "46%" (a dash when there is no value)."""
    if value is None or value == "":
        return "\u2013"
    return f"{float(value):.{int(digits)}%}"
