"""`python -m engine`: the same command line as `vtt-engine`."""

from engine.console import main

raise SystemExit(main())
