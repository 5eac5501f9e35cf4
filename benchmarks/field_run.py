"""A test at the field's size, end to end, on PostgreSQL (issue 51, point 1).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt REDIS_URL=redis://127.0.0.1:6379/8 \
        .venv/bin/python -m benchmarks.field_run [--scale 1.0] [--keep] [--folder DIR] [--write]

As a team with a real download would go, each stage through the platform's own services and jobs:

1. generate: `benchmarks.vg_download`'s download of Visual Genome's size (108,077 images x `--scale`);
2. map: `manage.py propose_mapping` reads it whole and proposes a mapping to the collection's vocabulary
   (the default one); the team's edited mapping is the one the generator pairs with its download
   (`vg_download.mapping_text`);
3. import: `import_create` with that mapping, declared complete and marked reviewed (the fit needs
   reviewed training images), run by a real long-jobs worker (`scripts/serve.sh worker`);
4. hold out: 1,000 images (x `--scale`, every n-th by id) moved to the test split (`image_update`) and
   given their pixels (`image_pixels_attach`: a scene graph imported without its picture), before the fit;
5. fit: `statistics_fit_start`, the fit job run by the worker;
6. test: `create_test` and `start_test` on the held-out images; the oracle's automatic truthing jobs run
   by the worker; then `publish_test` (no second opinions, as benchmarks.first_question: nothing waits
   for an operator);
7. take: gunicorn serves the platform, a real dealer worker (`scripts/serve.sh dealer`) deals; the blind
   baseline (blind-prior) enrols and takes the test through the HTTP API with the Python client. The
   first question is timed from the enrolment request.

Each stage's wall time and peak resident memory of the process doing it (psutil, every 0.2 s: the
worker's pool process for the jobs, the command's process for the mapping, this process for what runs
in it, the dealer and gunicorn's workers for the take). Targets: the fit within 10 minutes and 4 GB, the
test built and truthed within 15 minutes, the first question within 2 s of enrolment.

The scratch database (the configured one's name with `_field_run_SCALE`) and folder are dropped after the run,
unless `--keep`: then both stay, the stages done are in `results.json` in the folder, and the same
command goes on from the first stage not done. `--write` puts the result in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import time
import uuid
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from benchmarks import field_stages as stages  # noqa: E402
from benchmarks.field_stages import Peak, tree  # noqa: E402
from benchmarks.report import OUT, ROOT, commit, machine, write_section  # noqa: E402
from benchmarks.truthing_speed import NO_CHECKS, start_process, stop_workers, worker_env  # noqa: E402
from vtt_site.celery import app as celery_app  # noqa: E402
from vtt_site.celery import queues_use  # noqa: E402

FULL_IMAGES = 108_077
FULL_TEST_IMAGES = 1000
TARGETS = {"fit": (600.0, 4096.0), "test": (900.0, None)}  # seconds, MB
FIRST_QUESTION_TARGET = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of Visual Genome's size")
    parser.add_argument("--keep", action="store_true", help="keep the database and folder; resume from them")
    parser.add_argument(
        "--folder", type=Path, help="the scratch folder (default benchmarks/out/field-run-SCALE)"
    )
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if not settings.REDIS_URL or connection.vendor != "postgresql":
        sys.exit("Needs DATABASE_URL (PostgreSQL) and REDIS_URL: the point is real workers.")
    folder = args.folder or OUT / f"field-run-{args.scale:g}"
    if not args.keep and folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    database = connection.settings_dict
    # One database per scale: a kept run of another scale is never resumed by mistake.
    scale = f"{args.scale:g}".replace(".", "_")
    database["TEST"] = {**database.get("TEST", {}), "NAME": f"{database['NAME']}_field_run_{scale}"}
    scratch = connection.creation.create_test_db(
        verbosity=0, autoclobber=True, serialize=False, keepdb=args.keep
    )
    try:
        with override_settings(MEDIA_ROOT=str(folder / "media"), **NO_CHECKS):
            results = run(args, folder, scratch)
    finally:
        connection.close()
        if not args.keep:
            connection.creation.destroy_test_db(scratch, verbosity=0)
            shutil.rmtree(folder, ignore_errors=True)
    report = render(results, args)
    print(report)
    if args.write:
        write_section("field-run" if args.scale == 1 else f"field-run-{args.scale:g}", report)


def run(args, folder: Path, database_name: str) -> dict:
    path = folder / "results.json"
    results = json.loads(path.read_text()) if path.exists() else {"stages": {}, "ids": {}}
    queue = results["ids"].setdefault("queue", f"field-run-{uuid.uuid4().hex[:8]}")
    env = {**worker_env(folder, database_name, queue), "CELERY_DEAL_QUEUE": f"{queue}-deals"}
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "CELERY_QUEUE", "CELERY_PROPOSAL_QUEUE",
                                           "CELERY_DEAL_QUEUE", "MEDIA_ROOT", *NO_CHECKS)})  # fmt: skip
    celery_app.conf.task_always_eager = False
    queues_use(queue, f"{queue}-proposals", f"{queue}-deals")
    images = max(500, round(FULL_IMAGES * args.scale))  # fewer: the awkward cases pass 5%
    held_out = max(10, round(FULL_TEST_IMAGES * args.scale))
    worker = start_process([str(ROOT / "scripts/serve.sh"), "worker"], env, folder / "worker.log")
    ids, own, pool = results["ids"], (lambda: [os.getpid()]), tree(worker.pid, itself=False)
    plan = [
        ("generate", own, lambda: stages.generate(folder, images)),
        ("map", None, lambda: stages.propose(folder, ids, env)),
        ("import", pool, lambda: stages.import_download(folder, ids)),
        ("hold out", own, lambda: stages.hold_out(ids, held_out)),
        ("fit", pool, lambda: stages.fit(ids)),
        ("test", pool, lambda: stages.build_test(ids)),
        ("publish", own, lambda: stages.publish(ids)),
    ]
    try:
        results.setdefault("load", {"before": os.getloadavg()})
        for name, pids, step in plan:
            if name in results["stages"]:
                continue
            results["stages"][name] = timed(name, pids, step)
            path.write_text(json.dumps(results, indent=1))
    finally:
        stop_workers([worker])
    if "take" not in results["stages"]:
        results["stages"]["take"] = take(folder, env, ids)
        results["load"]["after"] = os.getloadavg()
        path.write_text(json.dumps(results, indent=1))
    return results


def timed(name: str, pids, step) -> dict:
    """Run one stage: its wall time, the peak memory of the process doing it, what it reports."""
    print(f"{time.strftime('%H:%M:%S')} {name} ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    with Peak(pids or (lambda: [])) as peak:
        figures = step() or {}
    seconds = time.perf_counter() - started
    if pids is not None:
        figures["peak_mb"] = peak.mb
    figures.update(seconds=seconds, load=os.getloadavg()[0])
    print(f"{time.strftime('%H:%M:%S')} {name}: {figures}", file=sys.stderr, flush=True)
    return figures


def take(folder: Path, env: dict, ids: dict) -> dict:
    """gunicorn and a dealer on the scratch database; the blind baseline enrols and takes the test."""
    from benchmarks.answer_throughput import free_port, start_server

    port = free_port()
    server = start_server(port, workers=2)
    dealer = start_process([str(ROOT / "scripts/serve.sh"), "dealer"], env, folder / "dealer.log")
    try:
        settled = stages.wait_idle(tree(dealer.pid), tree(server.pid))
        print(f"the service idle {settled:.1f} s after it started", file=sys.stderr, flush=True)
        with Peak(tree(dealer.pid, False)) as dealt, Peak(tree(server.pid, False)) as served:
            figures = timed("take", None, lambda: stages.take(f"http://127.0.0.1:{port}", ids))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
        stop_workers([dealer])
    return {**figures, "dealer_peak_mb": dealt.mb, "gunicorn_peak_mb": served.mb}


def render(results: dict, args) -> str:
    done, ids = results["stages"], results["ids"]
    command = "python -m benchmarks.field_run" + (f" --scale {args.scale:g}" if args.scale != 1 else "")
    lines = [
        f"## A test at the field's size, end to end{'' if args.scale == 1 else f' (scale {args.scale:g})'}",
        "",
        f"Command: `DATABASE_URL=postgres://... REDIS_URL=redis://... {command} --keep` (commit {commit()}, "
        f"{machine()}, {ids.get('database', 'PostgreSQL')}); load average {_load(results['load'])}. The "
        "machine is shared: others ran their own work and benchmarks at the same time, so the wall times "
        "are an upper bound of what it takes alone.",
        "",
        "| stage | what | wall | peak memory (process doing it) | load at its end | target |",
        "|---|---|---|---|---|---|",
    ]
    for name, what in stages.DESCRIBED.items():
        if name not in done:
            lines.append(f"| {name} | not run yet (the run stopped before it) | | | | |")
            continue
        figures = done[name]
        lines.append(
            f"| {name} | {what.format(**figures)} | {_minutes(figures['seconds'])} | {_peak(name, figures)} | "
            f"{figures['load']:.1f} | {_target(name, figures)} |"
        )
    return "\n".join([*lines, "", stages.NOTES]) + "\n"


def _peak(name: str, figures: dict) -> str:
    if name == "take":
        return f"dealer {figures['dealer_peak_mb']:,.0f} MB, gunicorn {figures['gunicorn_peak_mb']:,.0f} MB"
    return f"{figures['peak_mb']:,.0f} MB" if "peak_mb" in figures else ""


def _target(name: str, figures: dict) -> str:
    if name == "take":
        ok = figures["first_question"] <= FIRST_QUESTION_TARGET
        return f"first question within {FIRST_QUESTION_TARGET:.0f} s: {'met' if ok else '**missed**'}"
    if name not in TARGETS:
        return ""
    seconds, mb = TARGETS[name]
    ok = figures["seconds"] <= seconds and (mb is None or figures["peak_mb"] <= mb)
    limit = f"{seconds / 60:.0f} min" + (f" and {mb / 1024:.0f} GB" if mb else "")
    return f"within {limit}: {'met' if ok else '**missed**'}"


def _minutes(seconds: float) -> str:
    return f"{seconds:,.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _load(load: dict) -> str:
    return " -> ".join(f"{values[0]:.1f}" for values in (load.get("before"), load.get("after")) if values)


if __name__ == "__main__":
    main()
