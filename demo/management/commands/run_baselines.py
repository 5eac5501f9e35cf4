"""`manage.py run_baselines`: register the built-in baselines, enrol them in a published test (the demo's
40-image street test by default) and run each through the HTTP API with the Python client, like any
vision system (demo/baseline_runs.py)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.core.management.base import CommandError

from demo.baseline_runs import BASELINES, baselines_run
from truthing.published import frozen_test_get
from vtt_site.commands import PlatformCommand

_CHOOSE = f"Name one or more of {', '.join(BASELINES)} (--only, comma-separated)."


class Command(PlatformCommand):
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
            raise CommandError(f"Unknown baselines: {', '.join(sorted(unknown))}. {_CHOOSE}")
        if not wanted:
            raise CommandError(_CHOOSE)
        if url is not None and (urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc):
            raise CommandError(
                f"--url must be a server's address, such as http://127.0.0.1:8000/, not {url!r}."
            )
        if demo_images is not None and demo_images < 1:
            raise CommandError("--demo-images must be 1 or more.")
        if test is None:
            from demo.evaluation import demo_test_ensure

            test_obj = demo_test_ensure(images=demo_images)
        else:
            published = frozen_test_get(test_id=test)
            if published is None:
                raise CommandError(f"There is no published test {test}.")
            test_obj = published
        self.stdout.write(
            f"Test {test_obj.name!r} (id {test_obj.pk}): {test_obj.test_images.count()} images; each "
            "baseline is dealt its own streams."
        )
        baselines_run(test=test_obj, names=wanted, url=url, seed=seed, say=self.stdout.write)
