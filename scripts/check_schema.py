"""Fail when docs/openapi.yaml is not the schema the code generates (fix: `make schema`)."""

import difflib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "docs" / "openapi.yaml"

with tempfile.TemporaryDirectory() as tmp:
    fresh = Path(tmp) / "openapi.yaml"
    subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--file", str(fresh), "--validate", "--fail-on-warn"],
        cwd=ROOT,
        check=True,
    )
    generated = fresh.read_text()

committed = COMMITTED.read_text() if COMMITTED.exists() else ""
if generated != committed:
    diff = difflib.unified_diff(
        committed.splitlines(), generated.splitlines(), "committed", "generated", lineterm=""
    )
    print("\n".join(list(diff)[:80]))
    print("docs/openapi.yaml is out of date: run `make schema` and commit it.", file=sys.stderr)
    sys.exit(1)
print("docs/openapi.yaml is up to date.")
