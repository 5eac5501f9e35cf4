"""Write `.env.example` from the settings every app declares (`<app>/conf.py`, vtt_site/conf.py).

`python scripts/make_env_example.py` rewrites the file; `--check` only says whether it is up to date
(tests/vtt_site/test_app_settings.py fails when it is not). Decision 0082.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / ".env.example"


def generated() -> str:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
    os.environ.setdefault("SECRET_KEY", "only-to-read-the-declarations")
    import django

    django.setup()
    from vtt_site.app_settings import env_example, installed

    return env_example(list(installed()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="say whether .env.example is up to date")
    args = parser.parse_args()
    text = generated()
    if args.check:
        if EXAMPLE.read_text() != text:
            print(".env.example is out of date: run `python scripts/make_env_example.py`.", file=sys.stderr)
            return 1
        return 0
    EXAMPLE.write_text(text)
    print(f"wrote {EXAMPLE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
