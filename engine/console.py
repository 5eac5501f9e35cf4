"""`vtt-engine`: the engine core's commands (fit, generate, estimate) and `audit`.

The audit needs scikit-learn, which `engine.core` must not import, so the command line is dispatched
here: `audit` goes to `engine.audit.cli` (imported only then), everything else to `engine.core.cli`.
Django-free, like both (an import-linter contract says so).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["audit"]:
        from engine.audit.cli import main as audit_main

        return audit_main(arguments[1:], stdout)
    from engine.core.cli import main as core_main

    if arguments[:1] in (["-h"], ["--help"]) or not arguments:
        print("vtt-engine audit: see `vtt-engine audit --help` (the blind-guesser audit)", file=sys.stderr)
    return core_main(arguments, stdout)


if __name__ == "__main__":
    raise SystemExit(main())
