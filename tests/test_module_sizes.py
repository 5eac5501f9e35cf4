"""Every file fits in a head (issue 47, item 4; docs/architecture.md "The apps").

No module of the project is over 400 lines and no function (methods included) over 60, outside the
tests, the benchmarks and the migrations. A module that grows past it is split by concept: a room
becomes a package, a long function hands a named part of its work to another.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
# Directories never walked: what is not the project's code, and what the limits do not cover.
SKIPPED = {".venv", ".git", "node_modules", "tests", "benchmarks", "migrations", "var", "__pycache__"}


def project_modules() -> list[Path]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if any(part in SKIPPED for part in parts[:-1]):
            continue
        found.append(path)
    return found


def oversized() -> dict[str, int]:
    """Each module and function over its limit (`path` or `path name`), with its length in lines."""
    over: dict[str, int] = {}
    for path in project_modules():
        name = path.relative_to(ROOT).as_posix()
        source = path.read_text(encoding="utf-8")
        lines = len(source.splitlines())
        if lines > MAX_MODULE_LINES:
            over[name] = lines
        for node in ast.walk(ast.parse(source, filename=name)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    over[f"{name} {node.name}"] = max(length, over.get(f"{name} {node.name}", 0))
    return over


def test_the_walk_sees_the_project() -> None:
    """A walk that found nothing (a wrong root, a directory skipped too broadly) would pass anything."""
    names = {path.relative_to(ROOT).as_posix() for path in project_modules()}
    assert {"engine/core/proposer.py", "kernel/scene.py", "vtt_site/urls.py"} <= names
    assert not any(name.startswith(("tests/", "benchmarks/", ".venv/")) for name in names)
    assert not any("/migrations/" in name for name in names)


def test_no_module_or_function_is_too_long() -> None:
    over = oversized()
    unexpected = sorted(f"{name}: {lines} lines" for name, lines in over.items())
    assert not unexpected, (
        f"over {MAX_MODULE_LINES} lines a module or {MAX_FUNCTION_LINES} a function; split by concept:\n"
        + "\n".join(unexpected)
    )
