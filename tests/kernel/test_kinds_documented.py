"""The pages that list the question kinds list the registered ones (issue 47, item 7). Without Django.

A kind is one module of `kernel/kinds/` (docs/recipes.md, "Add a question kind"), but three pages
describe every kind by name: docs/method.md (the table of kinds), docs/engine.md (the candidates, the
estimator's paragraphs and table, the oracle) and docs/errors.md (`unknown_kind`). Nothing else made a
new kind's author touch them, so each list is checked here against the registry: a kind missing from
a list, or a list naming a kind no module registers, fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from kernel.kinds import REGISTRY, AttributeKind, InstantiationKind, QuestionKind
from tests.kernel.test_kinds_registry import AttrXor

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("method", "engine", "errors")
# A kind as the pages write it: `attr_and` or `attr_and(k, a, b)`.
NAMED = re.compile(r"`([a-z_]+)(?:\([^`)]*\))?`")


def named(text: str) -> list[str]:
    return NAMED.findall(text)


def table_rows(text: str, header: str) -> list[list[str]]:
    """The cells of each row of the table whose header row starts with `header`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def section(text: str, heading: str) -> str:
    """The text of the section `## heading`, up to the next heading of its level."""
    after = text.split(f"\n## {heading}\n", 1)[1]
    return after.split("\n## ", 1)[0]


def compare(where: str, listed: Iterable[str], kinds: Iterable[QuestionKind]) -> list[str]:
    listed, expected = set(listed), {kind.name for kind in kinds}
    problems = [f"{where}: {name} is missing" for name in sorted(expected - listed)]
    return problems + [f"{where}: {name} is not a registered kind" for name in sorted(listed - expected)]


def by_rows(
    where: str, rows: Sequence[Sequence[str]], column: int, kinds: Sequence[QuestionKind]
) -> list[str]:
    """A table with one row per kind or per family: every kind in it, no row mixing two families."""
    family = {kind.name: kind.family for kind in kinds}
    problems = compare(where, (name for row in rows for name in named(row[column])), kinds)
    for row in rows:
        families = {family[name] for name in named(row[column]) if name in family}
        if len(families) > 1:
            problems.append(f"{where}: the row {row[column]!r} mixes families")
    return problems


def method_problems(text: str, kinds: Sequence[QuestionKind]) -> list[str]:
    return by_rows(
        "docs/method.md, the table of kinds", table_rows(text, "| kind | structured form"), 1, kinds
    )


def engine_problems(text: str, kinds: Sequence[QuestionKind]) -> list[str]:
    attributes = [kind for kind in kinds if isinstance(kind, AttributeKind)]
    step = re.search(r"single\s+attributes\s+\(([^)]*)\),\s+then\s+pairs\s+\(([^)]*)\)", text)
    assert step is not None, "docs/engine.md no longer says which attribute candidates come first"
    problems = compare(
        "docs/engine.md, the candidates' single attributes",
        named(step.group(1)),
        [kind for kind in attributes if kind.arity == 1],
    )
    problems += compare(
        "docs/engine.md, the candidates' pairs", named(step.group(2)), [k for k in attributes if k.arity == 2]
    )
    for family in dict.fromkeys(kind.family for kind in kinds):
        heading = f"**{family.value.capitalize()} questions**"
        line = next((line for line in text.splitlines() if line.startswith(heading)), "")
        where = f"docs/engine.md, the estimator's {heading}"
        problems += compare(
            where,
            named(line.removeprefix(heading).split(".")[0]),
            [kind for kind in kinds if kind.family == family],
        )
    problems += by_rows(
        "docs/engine.md, the estimator's table", table_rows(text, "| question | levels"), 0, kinds
    )
    oracle = re.findall(r"^- `([a-z_]+)\(", section(text, "The oracle"), flags=re.MULTILINE)
    problems += compare(
        "docs/engine.md, the oracle's instantiation questions",
        oracle,
        [kind for kind in kinds if isinstance(kind, InstantiationKind)],
    )
    return problems


def errors_problems(text: str, kinds: Sequence[QuestionKind]) -> list[str]:
    row = next(line for line in text.splitlines() if line.startswith("| `unknown_kind` |"))
    return compare("docs/errors.md, unknown_kind", named(row.split("|")[3]), kinds)


def documentation_problems(kinds: Sequence[QuestionKind]) -> list[str]:
    text = {page: (ROOT / "docs" / f"{page}.md").read_text() for page in PAGES}
    return (
        method_problems(text["method"], kinds)
        + engine_problems(text["engine"], kinds)
        + errors_problems(text["errors"], kinds)
    )


def test_the_pages_list_every_registered_kind_and_no_other():
    problems = documentation_problems(list(REGISTRY.values()))
    assert problems == [], "docs/recipes.md, 'Add a question kind':\n" + "\n".join(problems)


def test_a_kind_the_pages_do_not_list_is_named_in_each_list_that_misses_it():
    problems = documentation_problems([*REGISTRY.values(), AttrXor()])  # a toy no page lists
    assert [problem.rsplit(": ", 1)[0] for problem in problems] == [
        "docs/method.md, the table of kinds",
        "docs/engine.md, the candidates' pairs",
        "docs/engine.md, the estimator's **Attribute questions**",
        "docs/engine.md, the estimator's table",
        "docs/errors.md, unknown_kind",
    ]
    assert all(problem.endswith(f"{AttrXor.name} is missing") for problem in problems)
