"""The project's Markdown docs (docs/**/*.md) as pages of the site, so that a page can send a person to
a guide instead of a path in the repository (issue 38). Only files that exist under docs/ when the site
starts are pages; a page's links to other docs become links to their pages."""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.urls import reverse
from django.utils.safestring import SafeString

from frontend.markdown import markdown_html

DOCS = Path(settings.BASE_DIR) / "docs"
# A relative link to another page of the docs, with its anchor if any.
_DOC_LINK = re.compile(r'href="(?![a-z]+:|/|#)([^"#]+)\.md(#[^"]*)?"')
_SCHEMA_LINK = re.compile(r'href="(?![a-z]+:|/|#)[^"]*openapi\.yaml"')


@lru_cache(maxsize=1)
def doc_pages() -> frozenset[str]:
    """Every page, as its path under docs/ without `.md` ("guides/operator")."""
    return frozenset(path.relative_to(DOCS).with_suffix("").as_posix() for path in DOCS.rglob("*.md"))


def doc_url(page: str) -> str:
    return reverse("frontend:doc", args=[page])


def doc_html(page: str) -> tuple[str, SafeString] | None:
    """The page's title (its first heading) and its HTML, or None for a page that is not in docs/."""
    if page not in doc_pages():
        return None
    text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
    title = next((line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")), page)
    html = str(markdown_html(text, shift=0))
    here = posixpath.dirname(page)

    def to_page(match: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(here, match.group(1)))
        if target not in doc_pages():
            return match.group(0)
        return f'href="{doc_url(target)}{match.group(2) or ""}"'

    html = _DOC_LINK.sub(to_page, html)
    html = _SCHEMA_LINK.sub(f'href="{reverse("api:docs")}"', html)
    return title, SafeString(html)  # sanitized by markdown_html; only hrefs to this site were rewritten
