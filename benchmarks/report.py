"""Writing one section of docs/benchmarks.md, between markers, leaving the other sections alone."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "docs" / "benchmarks.md"
HEADER = "# Benchmarks\n\nEach section is written by the script it names; rerun the command to refresh it.\n"
OUT = ROOT / "benchmarks" / "out"


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}"


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_section(name: str, body: str) -> None:
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    text = REPORT.read_text() if REPORT.exists() else HEADER
    block = f"{start}\n{body.rstrip()}\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        text = before + block + after
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text(text)


def publish(module: str, section: str, render: Callable[[str], str], write: bool) -> None:
    """Print the section `render` makes from the command line that ran it, and write it into
    docs/benchmarks.md when `write`."""
    command = " ".join(["python -m", module, *(a for a in sys.argv[1:] if a != "--write")])
    body = render(command)
    print(body)
    if write:
        write_section(section, body)


def cross_fitted_section(
    title: str,
    command: str,
    seconds: float,
    streams: int,
    about: str,
    header: list[str],
    rows: list[list[str]],
) -> str:
    """A section of docs/benchmarks.md read off the audit's cross-fitted training streams: its title, the
    command with the commit and machine, what the streams were, and one markdown table."""
    return "\n".join(
        [
            f"## {title}",
            "",
            f"Command: `{command}` (commit {commit()}, {machine()}); {seconds:.0f} s. {streams} cross-fitted "
            f"training streams{about}; no held-out scene is read.",
            "",
            "| " + " | ".join(header) + " |",
            "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows),
        ]
    )
