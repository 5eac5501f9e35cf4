"""Run the built-in baselines on a published test through the HTTP API with the Python client, like any
vision system: `manage.py run_baselines` runs all four on the test it is given; `manage.py demo_setup`
(what `make run` loads) runs the three blind ones on its small published test, so that the leaderboard
a newcomer opens first is not empty. The seeing baseline learns from the training images' pixels first,
which takes minutes: only run_baselines runs it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import httpx
from django.core.wsgi import get_wsgi_application
from django.db import connections
from vtt_client import ApiError

from accounts.roles import Role
from accounts.services import token_revoke, user_create_with_role
from demo.baselines import run
from evaluation.models import Session, VisionSystem
from evaluation.selectors.plans import plan_of
from evaluation.services.systems import system_create, system_token_create
from truthing.errors import TruthingErrorCode
from truthing.models import Test
from truthing.published.deals import seeded_deals
from truthing.selectors import images_of_test, pixels_missing
from vtt_site.errors import ApplicationError

BASELINES = {
    "always-yes": "Answers yes to every question.",
    "random": "Answers yes or no with a seeded coin.",
    "blind-prior": "Answers yes when the engine's p (history and training statistics only) is above 0.5.",
    "seeing": "Looks at the pixels: classifiers on colour and edge features, learned from the training "
    "collection's images and boxes (demo/baselines/seeing.py).",
}
BLIND = ("always-yes", "random", "blind-prior")
BASELINE_STOPPED = "baseline_stopped"
OWNER = "baselines"

Say = Callable[[str], Any]


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _serve() -> tuple[WSGIServer, str]:
    """This process's site on a free local port, in a thread: the baselines reach it over HTTP."""
    application = get_wsgi_application()

    def app(environ, start_response):
        try:
            return application(environ, start_response)
        finally:
            # Each request has a thread of its own: its connections would outlive it (and keep a test
            # database from being dropped) unless closed here.
            connections.close_all()

    server = make_server("127.0.0.1", 0, app, server_class=_Server, handler_class=_Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


def baselines_run(
    *, test: Test, names: Iterable[str], url: str | None = None, seed: int = 2015, say: Say = print
) -> None:
    """Register (once) and run each named baseline on `test`; one that took the test already is left
    as it is. Without `url` the site is served by this process for the run, and the deals are seeded
    from `seed` (truthing.published.deals.seeded_deals): on a fresh demo database the same command gives
    the same figures to the last digit. A server at `url` deals as it always does, from fresh secrets."""
    unknown = set(names) - set(BASELINES)
    if unknown:
        raise ApplicationError("unknown_baseline", f"Unknown baselines: {', '.join(sorted(unknown))}")
    missing = pixels_missing(images_of_test(test)) if "seeing" in names else ""
    if missing:  # a test made before the rule that refuses images without pixels
        raise ApplicationError(
            TruthingErrorCode.IMAGES_WITHOUT_PIXELS,
            f"The seeing baseline cannot take {test.name!r}: {missing}. Run the blind baselines only "
            f"(--only {','.join(BLIND)}).",
        )
    server = None
    if url is None:
        server, url = _serve()
    owner = user_create_with_role(username=OWNER, password=None, role=Role.VISION_SYSTEM_OWNER)
    try:
        with seeded_deals(seed) if server is not None else nullcontext():
            for name in names:
                _run(name, owner, test, url, seed, say)
    finally:
        if server is not None:
            server.shutdown()


def _run(name: str, owner: Any, test: Test, url: str, seed: int, say: Say) -> None:
    system = VisionSystem.objects.filter(owner=owner, baseline=name).first() or system_create(
        owner=owner, name=f"baseline: {name}", description=BASELINES[name], baseline=name
    )
    if Session.objects.filter(system=system, test_id=test.pk).exclude(state="active").exists():
        say(f"  {name}: took this test already.")
        return
    if name == "always-yes":
        decide = run.always_yes()
    elif name == "random":
        decide = run.random_answers(seed)
    elif name == "blind-prior":
        decide = run.blind_prior(session_p(system, test))
    else:
        decide = run.seeing(_train(test, seed, say))
    token, secret = system_token_create(system=system, name=f"run {name} {time.time():.0f}")
    try:
        result = run.take_test(url, secret, test.pk, decide)
    except ApiError as exc:
        raise ApplicationError(
            BASELINE_STOPPED, f"{name} stopped: the platform at {url} answered {exc.status}: {exc.message}"
        ) from exc
    except httpx.HTTPError as exc:
        raise ApplicationError(
            BASELINE_STOPPED, f"{name} stopped: the platform at {url} cannot be reached ({exc})."
        ) from exc
    finally:
        token_revoke(user=owner, token_id=token.pk)
    accuracy = result["accuracy"]
    scored = (
        f"accuracy {accuracy.value:.3f} (95% {accuracy.low:.3f}-{accuracy.high:.3f})"
        if accuracy.value is not None
        else "no accuracy"
    )
    say(
        f"  {name}: {scored} on {accuracy.trials} questions; {result['seconds']:.1f} s, "
        f"{result['requests']} requests."
    )


def _train(test: Test, seed: int, say: Say):
    from demo.baselines.seeing import SeeingBaseline
    from demo.evaluation import seeing_training_data

    started = time.monotonic()
    vocabulary, regions, training = seeing_training_data(test)
    if not training:
        raise ApplicationError(
            "demo_missing", "The test's statistics have no training image with pixels to learn from."
        )
    model = SeeingBaseline(vocabulary, regions, seed=seed).fit(training)
    seconds = time.monotonic() - started
    say(f"  seeing: trained on {len(training)} images ({model.training_samples}) in {seconds:.1f} s.")
    return model


def session_p(system: Any, test: Test):
    """The engine's p of each question of the system's session (its own dealt streams), looked up by
    (stream, step) once the session exists: what the blind prior computes from the history and the
    training statistics alone."""
    by_position: dict[tuple[int, int], float | None] = {}

    def p_of(stream: int, step: int) -> float | None:
        if not by_position:
            session = Session.objects.get(system=system, test_id=test.pk)
            by_position.update({(s.stream_pos, s.step_pos): s.p for s in plan_of(session).steps})
        return by_position.get((stream, step))

    return p_of
