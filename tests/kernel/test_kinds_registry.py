"""Question kinds are plug-ins (issue 35): one module per kind, registered in `kernel.kinds`, and no other
code names a kind. Without Django.

Two checks. No module, template or script outside a kind's own module compares with a kind's name or
an enum member (a new kind would fall through such a branch silently). And a kind registered later, a
toy `attr_toy_xor` ("one of the two, not both"), reaches every call site that reads kinds: parsing and the
structured form, the English, the oracle, the engine's candidates and estimate, the reuse attacker,
the ranking check's degradation, the audit's features, the scores by kind and the seeing baseline.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from demo.baselines.seeing import holding_probability
from engine.audit.features import FeatureSpace
from engine.core.candidates import attribute_candidates
from engine.core.oracle import answer
from engine.core.proposer import Stream
from engine.core.settings import EngineSettings
from engine.core.statistics import fit
from kernel import kinds
from kernel.kinds import KINDS, REGISTRY, AttributeKind, question_from_json, question_to_json, render_text
from kernel.prepared import Binding, PreparedScene
from kernel.questions import Answer, Label, make_instantiation
from kernel.scene import parse_scene
from scoring.reuse import Seen, _from_definition, reusable_key
from scoring.scores import score_of
from scoring.simulation import reaches
from tests.engine.core.random_scenes import random_scene, small_vocabulary
from tests.scoring.test_degradation import Plan, Step
from tests.scoring.test_degradation import Stream as PlanStream

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "accounts",
    "annotations",
    "benchmarks",
    "demo",
    "engine",
    "evaluation",
    "frontend",
    "kernel",
    "scoring",
    "truthing",
    "vtt_site",
)
# A kind's module (where its class is defined) is where its name belongs, and the registry, which
# imports each kind's module by name: the one import of it (kernel/kinds/__init__.py).
KIND_MODULES = {type(kind).__module__ for kind in REGISTRY.values()}
OWN = {module.replace(".", "/") + ".py" for module in KIND_MODULES} | {"kernel/kinds/__init__.py"}


def python_files() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" not in relative and relative not in OWN:
                yield path


def kind_names_in(path: Path, names: set[str], root: Path = ROOT) -> list[str]:
    """Where a Python module names a kind: a string equal to a kind's name (docstrings aside),
    `Kind.MEMBER`, or an import of a kind's module (only the registry imports it)."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in names and id(node) not in docstrings:
            found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value!r}")
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "Kind"
            and node.attr.lower() in names
        ):
            found.append(f"{path.relative_to(root)}:{node.lineno}: Kind.{node.attr}")
        found += [
            f"{path.relative_to(root)}:{node.lineno}: import {name}" for name in kind_imports(node, names)
        ]
    return found


def kind_imports(node: ast.AST, names: set[str]) -> list[str]:
    """The kinds' modules an import statement imports: `from kernel.kinds import attr`,
    `from kernel.kinds.attr import KIND`, `import kernel.kinds.attr`."""
    if isinstance(node, ast.ImportFrom) and node.module == "kernel.kinds":
        return [alias.name for alias in node.names if alias.name in names]
    if isinstance(node, ast.ImportFrom):
        modules = [node.module or ""]
    elif isinstance(node, ast.Import):
        modules = [alias.name for alias in node.names]
    else:
        return []
    kind_modules = {f"kernel.kinds.{name}" for name in names}
    return [module for module in modules if module in kind_modules]


def compared_in_pages(names: set[str]) -> list[str]:
    """Where a template or a script compares with a kind's name."""
    alternatives = "|".join(sorted(map(re.escape, names)))
    pattern = re.compile(rf"""(==|!=)=?\s*["']({alternatives})["']|["']({alternatives})["']\s*(==|!=)""")
    found = []
    for path in sorted((ROOT / "frontend").rglob("*")):
        if path.suffix in {".html", ".js"}:
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if pattern.search(line):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def test_no_code_outside_a_kinds_module_names_a_kind():
    names = set(KINDS)
    modules = {module.rpartition(".")[2] for module in KIND_MODULES}
    assert names == modules >= {"exist", "unique", "attr", "attr_and", "attr_or", "rel"}
    found = [place for path in python_files() for place in kind_names_in(path, names)]
    found += compared_in_pages(names)
    assert found == [], "branch on the kind's module (kernel.kinds) instead:\n" + "\n".join(found)


def test_the_scan_sees_a_branch_on_a_kind(tmp_path):
    """The scan itself: it finds a comparison with a name and an enum member, not a docstring."""
    module = tmp_path / "branch.py"
    module.write_text(
        '"""exist is fine in a docstring."""\nif kind == "unique" or k is Kind.ATTR_OR:\n    pass\n'
        "from kernel.kinds import rel, kind_of\nfrom kernel.kinds.attr import KIND\nimport kernel.kinds.exist\n"
        "from kernel.kinds.base import AttributeKind\n"
    )
    found = kind_names_in(module, set(KINDS), root=tmp_path)
    assert sorted(place.rsplit(": ", 1)[1] for place in found) == sorted(
        ["'unique'", "Kind.ATTR_OR", "import rel", "import kernel.kinds.attr", "import kernel.kinds.exist"]
    )


# --- A kind registered later reaches every call site --------------------------------------------------


class AttrXor(AttributeKind):
    name = "attr_toy_xor"
    title = "one attribute of two"
    arity = 2
    joiner = "or else"

    def holds(self, has: Sequence[Any]) -> Any:
        return has[0] ^ has[1]


@pytest.fixture
def xor():
    kind = kinds.register(AttrXor())
    try:
        yield kind
    finally:
        kinds.unregister(kind.name)


VOCABULARY = small_vocabulary()
SCENE = parse_scene(
    {
        "image": "two.png",
        "width": 200,
        "height": 100,
        "objects": [
            {"id": "a", "type": "person", "bbox": [10, 10, 20, 40], "attributes": ["female", "walking"]},
            {
                "id": "b",
                "type": "person",
                "bbox": [150, 10, 20, 40],
                "attributes": ["male", "walking", "wearing a hat"],
            },
        ],
        "relationships": [],
    },
    VOCABULARY,
)


def test_a_kind_registered_later_is_parsed_rendered_and_answered(xor):
    assert "attr_toy_xor" in KINDS
    document = {"kind": "attr_toy_xor", "label": "person 1", "attributes": ["walking", "wearing a hat"]}
    question = question_from_json(document, VOCABULARY, 200, 100)
    assert question.kind == "attr_toy_xor"
    assert question_to_json(question, VOCABULARY, 200, 100) == document
    assert render_text(question, VOCABULARY) == "Is person 1 walking or else wearing a hat?"
    prepared = PreparedScene.build(SCENE, VOCABULARY)
    for index, expected in ((0, Answer.YES), (1, Answer.NO)):  # walking only; walking and a hat
        binding = Binding({Label("person", 1): index})
        assert answer(prepared, binding, question) == (expected, None)


def test_a_kind_registered_later_is_proposed_and_estimated(xor):
    rng = np.random.default_rng(5)
    stats = fit(VOCABULARY, [random_scene(rng, VOCABULARY, f"s{i}") for i in range(300)])
    stream = Stream(stats, EngineSettings(epsilon=0.5, min_population=1), (1,))
    whole = VOCABULARY.regions[0].id
    label = stream.record(make_instantiation("unique", "person", [], whole, VOCABULARY), Answer.YES)
    asked = [
        q
        for level in attribute_candidates(stream.story, stream.vocabulary, stream.settings, label)
        for q in level
    ]
    xors = {q.attributes for q in asked if q.kind == "attr_toy_xor"}
    ands = {q.attributes for q in asked if q.kind == "attr_and"}
    # Two values of one exclusive group: never both (no attr_and), but one of them may be (attr_toy_xor).
    assert ("male", "female") in xors and ("male", "female") not in ands
    candidates = [q for q in asked if q.kind == "attr_toy_xor"]
    estimate = stream.estimate(candidates[0])
    assert estimate.p is not None and 0.0 <= estimate.p <= 1.0 and estimate.population > 0


def test_a_kind_registered_later_reaches_scoring_the_audit_and_the_baseline(xor):
    question = {"kind": "attr_toy_xor", "label": "person 1", "attributes": ["walking", "wearing a hat"]}
    key = reusable_key(4, {"person 1": ("defined",)}, question)
    assert key == ("attribute", 4, ("defined",), "attr_toy_xor", ("walking", "wearing a hat"))
    made = Seen({"kind": "unique", "type": "person", "attributes": ["walking"]}, True, "person 1")
    assert _from_definition([made], question) is None  # walking, and the hat unknown: either answer
    assert reaches("attributes", "attr_toy_xor") and not reaches("relationships", "attr_toy_xor")
    assert "kind=attr_toy_xor" in FeatureSpace(VOCABULARY).names
    assert holding_probability(xor, [0.8, 0.3]) == pytest.approx(0.8 * 0.7 + 0.2 * 0.3)
    steps = (Step(0, 0, 0, "unique", "yes", 0.5), Step(1, 1, 0, "attr_toy_xor", "no", 0.4))
    score = score_of(plan=Plan((PlanStream(0, 0, 2),), steps), answers={0: True, 1: True}, over=True)
    assert score["by_kind"]["attr_toy_xor"]["trials"] == 1
