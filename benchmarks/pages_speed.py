"""Each page a person opens, on a collection of Visual Genome's size, served as `make serve` serves it
(issue 51, point 3): p50 and p95 of each over HTTP, logged in as the role that opens it.

    .venv/bin/python -m benchmarks.pages_speed [--requests 50] [--write] [--rebuild]
        [--database-url postgres://postgres@127.0.0.1:5432/vtt_pages_bench] [--redis-url redis://…/14]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

DATABASE_URL = "postgres://postgres@127.0.0.1:5432/vtt_pages_bench"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/14"))
    parser.add_argument("--images", type=int, default=108_077)
    parser.add_argument("--folder", type=Path, default=Path(os.environ.get("TMPDIR", "/tmp")))
    parser.add_argument("--build-only", action="store_true")
    args = parser.parse_args()
    os.environ.update(platform_env(args))
    ensure_database(args.database_url)
    import django

    django.setup()
    from benchmarks.pages_collection import build

    built = build(args.images, args.folder)
    print(built, file=sys.stderr)


def platform_env(args) -> dict[str, str]:
    media = args.folder / "vtt-pages-bench-media"
    media.mkdir(parents=True, exist_ok=True)
    return {
        "DJANGO_SETTINGS_MODULE": "vtt_site.settings",
        "DATABASE_URL": args.database_url,
        "REDIS_URL": args.redis_url,
        "MEDIA_ROOT": str(media),
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
    }


def ensure_database(url: str) -> None:
    """The benchmark's own database, created the first time and kept."""
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as admin:
        if not admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            admin.execute(f'CREATE DATABASE "{name}"')


if __name__ == "__main__":
    main()
