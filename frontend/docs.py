"""The project's Markdown docs (docs/**/*.md) as pages of the site, so that a page can send a person to
a guide instead of a path in the repository (issue 38). Only files that exist under docs/ when the site
starts are pages; a page's links to other docs become links to their pages, and a link to a folder of
them (`decisions/`) to that folder's index. /docs/ is the index of them all (issue 46): the guides by
role first, then the subsystems, then the decision records, each under its own title."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from django.conf import settings
from django.urls import reverse
from django.utils.safestring import SafeString

from frontend.markdown import markdown_html

DOCS = Path(settings.BASE_DIR) / "docs"
# A relative link to another page of the docs, with its anchor if any.
_DOC_LINK = re.compile(r'href="(?![a-z]+:|/|#)([^"#]+)\.md(#[^"]*)?"')
_SCHEMA_LINK = re.compile(r'href="(?![a-z]+:|/|#)[^"]*openapi\.yaml"')
# A relative link to a folder of the docs ("decisions/"), with its anchor if any.
_FOLDER_LINK = re.compile(r'href="(?![a-z]+:|/|#)([^"#]*/)(#[^"]*)?"')


@dataclass(frozen=True)
class Section:
    """A part of the index: the pages of one folder of docs/ ("" for the top)."""

    folder: str
    heading: str
    about: str


SECTIONS = (
    Section(
        "guides",
        "Guides, by role",
        "What to do on the platform, step by step: start with the guide for your role.",
    ),
    Section(
        "",
        "How the platform works",
        "The method behind the tests, the architecture, one page per subsystem, and the reference lists.",
    ),
    Section(
        "decisions",
        "Decisions",
        "Why the platform is built as it is: a short record of each choice a successor might question.",
    ),
)
# Listed first, in this order: the guides as a newcomer meets the roles (the people who annotate, review
# and truth, the admin, then a vision system's owner), and the method before the subsystems. The other
# pages follow by their path (the decisions by number).
FIRST = (
    "guides/annotator",
    "guides/reviewer",
    "guides/operator",
    "guides/admin",
    "guides/vision-system",
    "guides/vision-language-models",
    "method",
    "architecture",
    "decisions/README",
)
_NUMBERED = re.compile(r"(\d{4})-")  # a decision record's file name starts with its number


@lru_cache(maxsize=1)
def doc_pages() -> frozenset[str]:
    """Every page, as its path under docs/ without `.md` ("guides/operator")."""
    return frozenset(path.relative_to(DOCS).with_suffix("").as_posix() for path in DOCS.rglob("*.md"))


def doc_folders() -> frozenset[str]:
    """The folders of docs/ that hold pages ("guides", "decisions"): each has an index page."""
    return frozenset(posixpath.dirname(page) for page in doc_pages()) - {""}


def doc_url(page: str) -> str:
    return reverse("frontend:doc", args=[page])


@cache  # only ever asked of a page of docs/: a fixed set
def doc_title(page: str) -> str:
    """The page's first heading (its path if it has none)."""
    lines = (DOCS / f"{page}.md").read_text(encoding="utf-8").splitlines()
    return next((line.lstrip("#").strip() for line in lines if line.startswith("#")), page)


def doc_html(page: str) -> tuple[str, SafeString] | None:
    """The page's title (its first heading) and its HTML, or None for a page that is not in docs/."""
    if page not in doc_pages():  # before the cache: a made-up path must not take a place in it
        return None
    return doc_title(page), _page_html(page)


@cache  # the pages are fixed when the site starts, and rendering one takes a while
def _page_html(page: str) -> SafeString:
    html = str(markdown_html((DOCS / f"{page}.md").read_text(encoding="utf-8"), shift=0))
    html = _links_to_pages(html, here=posixpath.dirname(page))
    # A wide table scrolls inside its own box, not the page, on a phone (the wrapper is ours, after nh3).
    html = html.replace("<table>", '<div class="table-scroll"><table>').replace("</table>", "</table></div>")
    return SafeString(html)  # sanitized by markdown_html; only our markup was added


def _links_to_pages(html: str, *, here: str) -> str:
    """The relative links to other docs, to a folder of them and to the schema, as links to their pages."""
    html = _DOC_LINK.sub(_to_page_of(doc_pages(), here), html)
    html = _FOLDER_LINK.sub(_to_page_of(doc_folders(), here), html)
    return _SCHEMA_LINK.sub(f'href="{reverse("api:docs")}"', html)


def _to_page_of(targets: frozenset[str], here: str):
    """A replacement for a link's match: the page of its target, if it is one of `targets` (a link to
    anything else is left as it is)."""

    def replace(match: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(here, match.group(1)))
        if target not in targets:
            return match.group(0)
        return f'href="{doc_url(target)}{match.group(2) or ""}"'

    return replace


def docs_index(folder: str | None = None) -> list[dict[str, object]]:
    """The index's sections (only `folder`'s, for a folder's index), each with its pages' links and
    titles: the pages named in FIRST first, in that order, then the others by their path."""
    sections = [section for section in SECTIONS if folder is None or section.folder == folder]
    return [
        {
            "section": section,
            "pages": [
                {"url": doc_url(page), "title": _listed_title(page)}
                for page in sorted(
                    (page for page in doc_pages() if posixpath.dirname(page) == section.folder),
                    key=lambda page: (FIRST.index(page) if page in FIRST else len(FIRST), page),
                )
            ],
        }
        for section in sections
    ]


def _listed_title(page: str) -> str:
    """A page's title as the index lists it: without Markdown's backticks, and a decision record's with
    its number in front (most titles say it, some do not)."""
    title = doc_title(page).replace("`", "")
    number = _NUMBERED.match(posixpath.basename(page))
    if number and not title.startswith(number.group(1)):
        return f"{number.group(1)}: {title}"
    return title


def folder_page(folder: str) -> str | None:
    """The page a link to a folder of the docs shows: its README, as a repository's web view does, if it
    has one (decisions/: the table of the records and their status), else None (the folder's index)."""
    readme = f"{folder}/README"
    return readme if readme in doc_pages() else None
