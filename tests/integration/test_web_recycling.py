"""Issue 22, item 4: gunicorn replaces each web worker after about `WEB_MAX_REQUESTS` requests (with
jitter), so memory one large request took does not stay with the worker. `scripts/serve.sh web` is run
as supervisord runs it, with a small count so that the test sees it happen."""

from __future__ import annotations

import psutil
import pytest

from tests.integration.conftest import wait_for
from tests.integration.test_serve_without_docker import call
from tests.parallel import ONE_SERVED_AT_A_TIME
from tests.serving import free_port, kill, start

pytestmark = [pytest.mark.integration, ONE_SERVED_AT_A_TIME]


def test_the_web_worker_is_replaced_after_its_share_of_requests(real_services, tmp_path):
    port = free_port()
    log = tmp_path / "web.log"
    env = {**real_services, "PORT": str(port), "WEB_WORKERS": "1", "WEB_MAX_REQUESTS": "3"}
    env["WEB_MAX_REQUESTS_JITTER"] = "1"
    web = start(["scripts/serve.sh", "web"], env, log)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(lambda: call(base, "/healthz")[0] == 200, 60, "gunicorn to answer", log)
        workers = set()
        for _ in range(8):
            assert call(base, "/healthz")[0] == 200
            workers |= {child.pid for child in psutil.Process(web.pid).children()}
        # 8 requests, at most 4 each: at least two workers in turn; without recycling, the first only.
        assert len(workers) >= 2, log.read_text()[-2000:]
    finally:
        kill(web)
