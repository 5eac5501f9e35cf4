"""Markdown written by admins (a collection's description) as HTML that is safe to put in a page.

markdown-it-py renders CommonMark with raw HTML turned off (its "js-default" preset: HTML in the text
is shown as text, `javascript:` links are not made); nh3 (the ammonia sanitizer) then keeps only the
tags and attributes listed here, whatever the renderer produced, so a future renderer option or bug
cannot let a script or an event handler through. Links get rel="noopener noreferrer nofollow".
"""

from __future__ import annotations

from functools import lru_cache

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

TAGS = {
    "p", "br", "strong", "em", "del", "code", "pre", "blockquote", "ul", "ol", "li", "a", "hr",
    "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    return MarkdownIt("js-default")


def markdown_html(text: str, *, shift: int = 2) -> SafeString:
    """The text's Markdown as sanitized HTML (empty for no text). Headings go `shift` levels down: a
    description starts at h3, the page having its own h1 and h2; a page of the docs keeps its own."""
    if not text:
        return mark_safe("")
    html = _renderer().render(text)
    for level in range(6, 0, -1):  # deepest first, so a shifted heading is not shifted twice
        shifted = min(level + shift, 6)
        html = html.replace(f"<h{level}>", f"<h{shifted}>").replace(f"</h{level}>", f"</h{shifted}>")
    cleaned = nh3.clean(
        html,
        tags=TAGS | {f"h{level}" for level in range(1 + shift, 3)},
        attributes=ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(cleaned)  # sanitized by nh3 just above
