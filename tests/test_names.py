"""No function of the project is named like a test (pyproject.toml, [tool.pytest.ini_options]). Without
Django.

pytest collects every module-level function of a test module whose name starts with "test" (its default
`python_functions`), imported ones too: a test module that imported such a service or selector would
have pytest call it as a test, with fixtures named after its arguments. So the writes whose noun is the
domain's "test" are named `<verb>_test` (`publish_test`, `describe_test`), the one exception to
`<noun>_<verb>` (docs/architecture.md, "Names"), and a read about tests does not start with the word
either (`taking_test_ids`, not `tests_taking`).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Every package of the project, found rather than listed (a new one is checked without anyone adding it),
# and the installable client.
PACKAGES = sorted({path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests"} | {"clients"})


def collectable_functions(path: Path, root: Path = ROOT) -> list[str]:
    """The module-level functions of a module that pytest would collect if a test module imported them."""
    tree = ast.parse(path.read_text())
    return [
        f"{path.relative_to(root)}:{node.lineno}: {node.name}"
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    ]


def test_no_function_of_the_project_is_named_like_a_test():
    found = [
        place
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for place in collectable_functions(path)
    ]
    assert found == [], "pytest would collect these; do not start the name with 'test':\n" + "\n".join(found)


def test_the_scan_sees_a_function_named_like_a_test(tmp_path):
    module = tmp_path / "services.py"
    module.write_text(
        "def test_describe(*, test_id):\n    pass\n\n\ndef describe_test(*, test_id):\n    pass\n"
    )
    assert collectable_functions(module, root=tmp_path) == ["services.py:1: test_describe"]
