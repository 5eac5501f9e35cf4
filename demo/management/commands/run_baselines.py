"""`manage.py run_baselines`: register the built-in baselines, enrol them in a published test (the demo's
by default) and run each through the HTTP API with the Python client, like any vision system."""

from __future__ import annotations

import threading
import time
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.core.management.base import BaseCommand, CommandError
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections

from accounts.roles import Role
from accounts.services import token_revoke, user_create_with_role
from demo.baselines import run
from evaluation.models import Session, VisionSystem
from evaluation.selectors.plans import plan_of
from evaluation.services.systems import system_create, system_token_create
from truthing.published import frozen_test_get
from vtt_site.errors import ApplicationError

BASELINES = {
    "always-yes": "Answers yes to every question.",
    "random": "Answers yes or no with a seeded coin.",
    "blind-prior": "Answers yes when the engine's p (history and training statistics only) is above 0.5.",
    "seeing": "Looks at the pixels: classifiers on colour and edge features, learned from the training "
    "collection's images and boxes (demo/baselines/seeing.py).",
}
OWNER = "baselines"


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args) -> None:
        pass


def _serve():
    application = get_wsgi_application()

    def app(environ, start_response):
        try:
            return application(environ, start_response)
        finally:
            close_old_connections()

    server = make_server("127.0.0.1", 0, app, server_class=_Server, handler_class=_Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


class Command(BaseCommand):
    help = "Register, enrol and run the built-in baselines on a published test (default: the demo test)."

    def add_arguments(self, parser):
        parser.add_argument("--test", type=int, help="A published test's id (default: the demo test).")
        parser.add_argument("--url", help="A running server (default: one started in this process).")
        parser.add_argument("--only", default=",".join(BASELINES), help="Comma-separated baselines to run.")
        parser.add_argument("--seed", type=int, default=2015)
        parser.add_argument("--demo-images", type=int, default=None, help="Test images of a new demo test.")

    def handle(self, *args, test=None, url=None, only="", seed=2015, demo_images=None, **options):
        wanted = [name.strip() for name in only.split(",") if name.strip()]
        unknown = set(wanted) - set(BASELINES)
        if unknown:
            raise CommandError(f"Unknown baselines: {', '.join(sorted(unknown))}")
        try:
            if test is None:
                from demo.evaluation import demo_test_ensure

                test_obj = demo_test_ensure(images=demo_images)
            else:
                test_obj = frozen_test_get(test_id=test)
                if test_obj is None:
                    raise CommandError(f"There is no published test {test}.")
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(
            f"Test {test_obj.name!r} (id {test_obj.pk}): {test_obj.test_images.count()} images; each baseline "
            "is dealt its own streams."
        )
        server = None
        if url is None:
            server, url = _serve()
        owner = user_create_with_role(username=OWNER, password=None, role=Role.VISION_SYSTEM_OWNER)
        try:
            for name in wanted:
                self._run(name, owner, test_obj, url, seed)
        finally:
            if server is not None:
                server.shutdown()

    def _run(self, name, owner, test, url, seed) -> None:
        system = VisionSystem.objects.filter(owner=owner, baseline=name).first() or system_create(
            owner=owner, name=f"baseline: {name}", description=BASELINES[name], baseline=name
        )
        if Session.objects.filter(system=system, test_id=test.pk).exclude(state="active").exists():
            self.stdout.write(f"  {name}: took this test already.")
            return
        if name == "always-yes":
            decide = run.always_yes()
        elif name == "random":
            decide = run.random_answers(seed)
        elif name == "blind-prior":
            decide = run.blind_prior(_session_p(system, test))
        else:
            decide = run.seeing(self._train(test, seed))
        token, secret = system_token_create(system=system, name=f"run {name} {time.time():.0f}")
        try:
            result = run.take_test(url, secret, test.pk, decide)
        finally:
            token_revoke(user=owner, token_id=token.pk)
        accuracy = result["accuracy"]
        self.stdout.write(
            f"  {name}: accuracy {accuracy.value:.3f} (95% {accuracy.low:.3f}-{accuracy.high:.3f}) on "
            f"{accuracy.trials} questions; {result['seconds']:.1f} s, {result['requests']} requests."
        )

    def _train(self, test, seed):
        from demo.baselines.seeing import SeeingBaseline
        from demo.evaluation import seeing_training_data

        started = time.monotonic()
        vocabulary, regions, training = seeing_training_data(test)
        if not training:
            raise CommandError("The test's statistics have no training image with pixels to learn from.")
        model = SeeingBaseline(vocabulary, regions, seed=seed).fit(training)
        self.stdout.write(
            f"  seeing: trained on {len(training)} images ({model.training_samples}) in "
            f"{time.monotonic() - started:.1f} s."
        )
        return model


def _session_p(system, test):
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
