"""Simulated operators that answer as the operator's page does: over HTTP, through the API.

Each operator is a thread with a client of its own and its own API token: it takes a stream
(`POST /api/v1/truthing/queue/next/`), thinks, answers (`POST …/streams/{id}/answer/`, whose response
waits for the next question: decision 0077), and, if the response came back `proposing`, reads the
stream again every 250 ms as the page does. The figure is the page's: from sending the answer to holding
the next question (or the stream's end).

Used by benchmarks.operator_ui under `make serve`. They replace benchmarks.truthing_speed's operators
there, which call the services in one process and poll the database every 5 ms while they wait: that
polling was load no real operator makes (16 threads, about 3,000 queries a second), and their Celery
producer, shared by 16 threads, lost proposals. Nothing here imports Django.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import httpx
import numpy as np

POLL_SECONDS = 0.25  # the page's own wait between reads of a stream still `proposing`
GIVE_UP_SECONDS = 60.0


def operators_answer_over_http(
    base_url: str, tokens: list[str], going: Callable[[], bool], think: float
) -> list[float]:
    """Every operator answers (after thinking `think` s on average) while `going()` holds; the answer ->
    next question latencies of all of them, in seconds."""
    latencies: list[float] = []
    threads = [
        threading.Thread(target=operator_answers, args=(base_url, token, going, think, latencies, n))
        for n, token in enumerate(tokens)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


def operator_answers(
    base_url: str, token: str, going: Callable[[], bool], think: float, latencies: list[float], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    headers = {"Authorization": f"Token {token}"}
    with httpx.Client(base_url=f"{base_url}/api/v1/truthing/", headers=headers, timeout=30) as client:
        work = take_work(client)
        while work is not None and going():
            if work["state"] == "ended":
                work = take_work(client)
                continue
            if work["pending"] is None:  # still proposing its first question
                work = wait_for_question(client, work)
                continue
            time.sleep(think * rng.uniform(0.5, 1.5))
            sent = time.perf_counter()
            response = client.post(
                f"streams/{work['id']}/answer/",
                json={"step": work["pending"]["step"], "answer": str(rng.choice(["yes", "no"]))},
            )
            response.raise_for_status()
            work = wait_for_question(client, response.json())
            latencies.append(time.perf_counter() - sent)  # list.append is atomic


def take_work(client: httpx.Client) -> dict | None:
    """The next stream to truth (the simulated operators are given streams only), or None: no work left."""
    response = client.post("queue/next/")
    response.raise_for_status()
    return None if response.status_code == 204 else response.json()


def wait_for_question(client: httpx.Client, work: dict) -> dict:
    """The stream once it is no longer `proposing`, read as the page reads it."""
    deadline = time.monotonic() + GIVE_UP_SECONDS
    while work["state"] == "proposing":
        if time.monotonic() > deadline:
            raise RuntimeError(f"stream {work['id']} had no question after {GIVE_UP_SECONDS:g} s")
        time.sleep(POLL_SECONDS)
        response = client.get(f"streams/{work['id']}/")
        response.raise_for_status()
        work = response.json()
    return work
