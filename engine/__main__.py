"""`python -m engine`: the same command line as `vtt-engine`."""

from engine.core.cli import main

raise SystemExit(main())
