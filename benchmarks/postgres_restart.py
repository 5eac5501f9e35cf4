"""A PostgreSQL restart under load, on a PostgreSQL of this script's own (issue 22, item 6).

Starts a private PostgreSQL (initdb + pg_ctl, on a free port, in a temporary folder: the machine's own
server is never touched), migrates it, starts gunicorn as `scripts/serve.sh web` does, and calls
`GET /api/v1/me/` (with a token) and `GET /tokens/` (a web page, logged in) in a loop while the
database is restarted (`pg_ctl restart -m fast`). Prints what each kind of request got during the run.

    .venv/bin/python -m benchmarks.postgres_restart [--seconds 20] [--restart-at 5]

Needs REDIS_URL (the cache and the throttles); DATABASE_URL is replaced by the private server's.
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

from tests.serving import BIN, ROOT, free_port


def pg_bin(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))), None)
    if not found:
        sys.exit(f"{name} not found: install PostgreSQL's server package")
    return found


def run(*command: str, env: dict[str, str] | None = None) -> None:
    subprocess.run(
        command, check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )


def as_server_user(*command: str) -> tuple[str, ...]:
    """PostgreSQL refuses to run as root: as root, the server's commands run as the postgres user."""
    return ("runuser", "-u", "postgres", "--", *command) if os.geteuid() == 0 else command


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--restart-at", type=float, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="vtt-pg-"))
    pg_port, web_port = free_port(), free_port()
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    run(*as_server_user(pg_bin("initdb"), "-D", str(data), "-U", "postgres", "--auth=trust"))
    pg_ctl = [*as_server_user(pg_bin("pg_ctl")), "-D", str(data), "-l", str(folder / "pg.log"), "-w"]
    options = f"-p {pg_port} -k {folder} -c listen_addresses=127.0.0.1"
    run(*pg_ctl, "-o", options, "start")
    web = None
    try:
        run(pg_bin("createdb"), "-h", "127.0.0.1", "-p", str(pg_port), "-U", "postgres", "vtt")
        env = {
            **os.environ,
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:{pg_port}/vtt",
            "PORT": str(web_port),
            "WEB_WORKERS": "2",
            "SECURE_COOKIES": "0",
            "VAR_DIR": str(folder / "var"),
        }
        run(str(BIN / "python"), "manage.py", "migrate", "--noinput", env=env)
        secret = (
            subprocess.run(
                [str(BIN / "python"), "manage.py", "shell", "-c", SETUP],
                check=True,
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        web = subprocess.Popen(
            ["scripts/serve.sh", "web"],
            cwd=ROOT,
            env=env,
            stdout=(folder / "web.log").open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        base = f"http://127.0.0.1:{web_port}"
        wait_until(lambda: status(base + "/healthz")[0] == 200, 60)
        browser = logged_in(base)
        tally: dict[str, collections.Counter] = {"api": collections.Counter(), "page": collections.Counter()}
        started, restart, took = time.monotonic(), None, None
        while time.monotonic() - started < args.seconds:
            if restart is None and time.monotonic() - started >= args.restart_at:
                restarted = time.monotonic()  # in the background: the requests go on meanwhile
                restart = subprocess.Popen([*pg_ctl, "-o", options, "-m", "fast", "restart"], cwd=ROOT)
            if restart is not None and took is None and restart.poll() is not None:
                took = time.monotonic() - restarted
            code, retry = status(base + "/api/v1/me/", {"Authorization": f"Token {secret}"})
            tally["api"][f"{code}{' Retry-After' if retry else ''}"] += 1
            code, retry = status(base + "/tokens/", opener=browser)
            tally["page"][f"{code}{' Retry-After' if retry else ''}"] += 1
        print(f"pg_ctl restart took {took:.1f} s; load average {os.getloadavg()[0]:.1f}")
        for kind, counts in tally.items():
            print(f"{kind}: " + ", ".join(f"{n} x {code}" for code, n in sorted(counts.items())))
        text = (folder / "web.log").read_text()
        print("web log 500 lines:", len(re.findall(r'" 500 ', text)))
    finally:
        if web is not None:
            os.killpg(web.pid, 15)
            web.wait(timeout=30)
        run(*pg_ctl, "-m", "fast", "stop")
        shutil.rmtree(folder, ignore_errors=True)


SETUP = """
from accounts.roles import Role
from accounts.services import token_create
from tests.factories import UserFactory
user = UserFactory(role=Role.ANNOTATOR, username="bench")
user.set_password("bench-password-1"); user.save()
print(token_create(user=user, name="bench")[1])
"""


def wait_until(condition, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    sys.exit("gunicorn did not answer")


def status(url: str, headers: dict[str, str] | None = None, opener=None) -> tuple[int, bool]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with (opener or urllib.request.build_opener()).open(request, timeout=10) as response:
            return response.status, bool(response.headers.get("Retry-After"))
    except urllib.error.HTTPError as error:
        return error.code, bool(error.headers.get("Retry-After"))
    except OSError:
        return 0, False


def logged_in(base: str):
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(base + "/login/", timeout=10).read()
    token = next(c.value for c in jar if c.name == "csrftoken")
    body = f"username=bench&password=bench-password-1&csrfmiddlewaretoken={token}".encode()
    request = urllib.request.Request(base + "/login/", data=body, headers={"Referer": base + "/login/"})
    opener.open(request, timeout=10).read()
    return opener


if __name__ == "__main__":
    main()
