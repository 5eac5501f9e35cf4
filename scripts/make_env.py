"""Print a local `.env`: the values of .env.example with a freshly generated SECRET_KEY.

The key is generated on each machine, so no secret ever lives in the repository. `.env.example` is
itself written from the apps' declarations (scripts/make_env_example.py); this reads the file, not the
declarations, so that it runs before anything is installed (`make run` on a fresh clone).
"""

import secrets
from pathlib import Path

example = Path(__file__).resolve().parent.parent / ".env.example"
for line in example.read_text().splitlines():
    if line.startswith("SECRET_KEY="):
        line = f"SECRET_KEY={secrets.token_urlsafe(50)}"
    print(line)
