"""What one session learns is worth to the next (issue 18): the reuse attack.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt REDIS_URL= \
        .venv/bin/python -m benchmarks.reuse_attack [--earlier 1,3,10] [--repeats 3] [--pools 3] [--write]

On a database where `manage.py demo_setup` has run (eager tasks: REDIS_URL empty), it enrols vision
systems of fresh owners (three each, the cap) in the demo's oracle-truthed test, and plays every
session through the evaluation services as a system would, answering yes and keeping what it is told
after each answer (the truth, the label made). The attacker (scoring.reuse: exact questions in the same
context, instantiation facts keyed by the labels already made, what a label's defining question says
about the object, else the blind prior) remembers the first n sessions and answers a fresh session:
its accuracy is reported beside the blind prior's on the same questions (the test is written, not oral:
what a session is told does not depend on its answers, so scoring the attacker's guesses against the
truths is what answering with them would score). With `--pools N` it does the same on an
operator-style test built from the same images: N streams per image (truthed by the oracle as
operators would, then marked as operators' pools), dealt from the pools.

Against a platform that gives every session the same questions the attacker is right about 1.0 after
one earlier session; with dealt streams it should stay near the blind prior (targets on the oracle test:
at most +0.03 after 1 earlier session, +0.08 after 10). `--write` puts the table in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
django.setup()

from django.test.utils import override_settings  # noqa: E402

from accounts.roles import Role  # noqa: E402
from accounts.services import user_create_with_role  # noqa: E402
from benchmarks.report import commit, machine, write_section  # noqa: E402
from demo.services import AUTOMATIC_TEST  # noqa: E402
from evaluation.selectors.plans import plan_of  # noqa: E402
from evaluation.services.sessions import answer_submit, session_enrol  # noqa: E402
from evaluation.services.systems import system_create  # noqa: E402
from scoring.reuse import PlayedStream, Seen, reuse_accuracy  # noqa: E402
from truthing.models import AutomaticTruthing, Test, TestImage, TestState, TruthingMode  # noqa: E402
from truthing.services.automatic import automatic_truthing_run  # noqa: E402
from truthing.services.lifecycle import create_test, publish_test, start_test  # noqa: E402

SYSTEMS_PER_OWNER = 3


class Systems:
    """Fresh systems, SYSTEMS_PER_OWNER per fresh owner (the enrolment cap)."""

    def __init__(self) -> None:
        self.run, self.made, self.owner = uuid.uuid4().hex[:8], 0, None

    def next(self):
        if self.made % SYSTEMS_PER_OWNER == 0:
            self.owner = user_create_with_role(
                username=f"reuse-{self.run}-{self.made}",
                password=uuid.uuid4().hex,
                role=Role.VISION_SYSTEM_OWNER,
            )
        self.made += 1
        return system_create(owner=self.owner, name=f"reuse {self.made}")


def play(system, test: Test) -> list[PlayedStream]:
    """Enrol and answer every question yes through the services; what the system was told."""
    session = session_enrol(system=system, test_id=test.pk)
    session.refresh_from_db()
    plan = plan_of(session)
    told: list[list[tuple[Seen, float | None]]] = [[] for _ in plan.streams]
    for step in plan.steps:
        result = answer_submit(session_id=session.pk, stream=step.stream_pos, step=step.step_pos, answer=True)
        shown = result.step  # the truth and the label, as the answer's response gives them
        told[step.stream_pos].append((Seen(shown.question, shown.answer == "yes", shown.label), shown.p))
    return [
        PlayedStream(stream.test_image_id, steps) for stream, steps in zip(plan.streams, told, strict=True)
    ]


def measure(test: Test, earlier: list[int], repeats: int) -> list[dict]:
    systems = Systems()
    started = time.perf_counter()
    memory = [play(systems.next(), test) for _ in range(max(earlier))]
    rows = []
    for n in earlier:
        attacker, blind = [], []
        questions = 0
        for _ in range(repeats):
            right, prior, total = reuse_accuracy(memory[:n], play(systems.next(), test))
            attacker.append(right / total)
            blind.append(prior / total)
            questions += total
        rows.append(
            {
                "n": n,
                "attacker": statistics.fmean(attacker),
                "blind": statistics.fmean(blind),
                "questions": questions,
            }
        )
    print(f"  {systems.made} sessions played in {time.perf_counter() - started:.0f} s")
    return rows


def pooled_test(demo: Test, pools: int) -> Test:
    """An operator-style test on the demo test's images: `pools` streams per image, truthed by the oracle
    as operators would have, then marked as truthed by operators (their pools)."""
    name = f"Reuse benchmark, pools of {pools}"
    test = Test.objects.filter(name=name).first()
    if test is None:
        images = list(demo.test_images.order_by("position").values_list("image_id", flat=True))
        test = create_test(
            name=name,
            statistics=demo.statistics,
            image_ids=images,
            seed=demo.seed + 1,
            streams_per_image=pools,
            created_by=demo.created_by,
        )
    if test.state == TestState.DRAFT:
        with override_settings(TRUTHING_GOLD_SHARE=0.0):
            test = start_test(test=test)
            for job in AutomaticTruthing.objects.filter(test=test):
                automatic_truthing_run(job_id=job.pk)
        TestImage.objects.filter(test=test).update(mode=TruthingMode.OPERATOR)
        test = publish_test(test=test)
    return test


def table(name: str, rows: list[dict]) -> str:
    lines = [
        f"**{name}**",
        "",
        "| earlier sessions n | attacker | blind prior | attacker - blind | questions scored |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['n']} | {r['attacker']:.3f} | {r['blind']:.3f} | {r['attacker'] - r['blind']:+.3f} | {r['questions']} |"
        for r in rows
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--earlier", default="1,3,10", help="the numbers n of earlier sessions remembered")
    parser.add_argument("--repeats", type=int, default=3, help="fresh sessions attacked per n")
    parser.add_argument("--pools", type=int, default=0, help="also an operator-style test, pools of N")
    parser.add_argument("--write", action="store_true", help="write the table into docs/benchmarks.md")
    args = parser.parse_args()
    earlier = sorted({int(n) for n in args.earlier.split(",")})
    demo = Test.objects.get(name=AUTOMATIC_TEST)
    load = os.getloadavg()[0]
    sections = []
    print(f"{demo.name}: {demo.test_images.count()} images")
    sections.append(table(f"{demo.name} (oracle-truthed)", measure(demo, earlier, args.repeats)))
    print(sections[-1])
    if args.pools:
        pooled = pooled_test(demo, args.pools)
        print(f"{pooled.name}: {pooled.test_images.count()} images")
        sections.append(table(f"{pooled.name} (operator-style)", measure(pooled, earlier, args.repeats)))
        print(sections[-1])
    body = "\n\n".join(
        [
            "`.venv/bin/python -m benchmarks.reuse_attack "
            f"--earlier {args.earlier} --repeats {args.repeats} --pools {args.pools}` "
            f"(commit {commit()}, {machine()}, load average {load:.1f}). Mean accuracy over {args.repeats} "
            "fresh sessions per n.",
            *sections,
        ]
    )
    if args.write:
        write_section("reuse-attack", body)


if __name__ == "__main__":
    main()
