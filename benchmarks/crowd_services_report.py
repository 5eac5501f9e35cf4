"""The section of docs/benchmarks.md that `benchmarks.crowd_services` writes: its targets and tables."""

from __future__ import annotations

from typing import Any

from benchmarks.crowd_quality import _f, _met, _table, engine_table
from benchmarks.crowd_simulation import CROWD
from benchmarks.report import commit, machine

BOXES = ("precision", "recall", "f1", "mean_iou", "attributes", "relations_f1")


def targets(result: dict[str, Any]) -> list[list[str]]:
    main = result["runs"][(3, "weighted")]
    singles = main["singles"]
    best = max(s["attributes"] or 0.0 for s in singles.values())
    careful = ", ".join(_f(singles[a.name]["f1"]) for a in CROWD if not a.spammer)
    spammer = next(a.name for a in CROWD if a.spammer)
    paused = {key: run["gold"][spammer]["paused_after"] for key, run in result["runs"].items()}
    worst = None if any(n is None for n in paused.values()) else max(paused.values())
    said = ", ".join(f"{k} {v}: {'never' if n is None else n}" for (k, v), n in paused.items())
    attributes, f1 = main["merge"]["attributes"], main["merge"]["f1"]
    return [
        [
            "merged attributes (3 per image, weighted) at least the best single annotator's",
            f"{_f(attributes)} against {_f(best)}",
            _met(attributes is not None and attributes >= best),
        ],
        [
            "merged box F1 (3 per image) at least 0.95, careful annotators alone 0.85 to 0.90",
            f"{_f(f1)} (careful alone: {careful})",
            _met(f1 is not None and f1 >= 0.95),
        ],
        [
            "the spammer paused within 20 gold images",
            f"after {said} gold images",
            _met(worst is not None and worst <= 20),
        ],
    ]


def _merge_rows(result: dict[str, Any]) -> list[list[str]]:
    main = result["runs"][(3, "weighted")]
    rows = [["1", "one annotator (first copy)", *(_f(main["first"][k]) for k in BOXES), "-", "1.00"]]
    for (seats, vote), run in result["runs"].items():
        rows.append(
            [
                str(seats),
                vote,
                *(_f(run["merge"][k]) for k in BOXES),
                f"{run['weighted']:.2f}",
                f"{run['review']:.2f}",
            ]
        )
    return rows


def _annotator_rows(result: dict[str, Any]) -> list[list[str]]:
    main = result["runs"][(3, "weighted")]
    rows = []
    for a in CROWD:
        single, gold = main["singles"][a.name], main["gold"][a.name]
        paused = "; ".join(
            f"{k} {v}: {'-' if r['gold'][a.name]['paused_after'] is None else r['gold'][a.name]['paused_after']}"
            for (k, v), r in result["runs"].items()
        )
        rows.append(
            [
                a.name,
                str(single["images"]),
                *(_f(single[k]) for k in BOXES),
                str(gold["gold"]),
                _f(gold["accuracy"]),
                paused,
            ]
        )
    return rows


def render(command: str, result: dict[str, Any]) -> str:
    a = result["args"]
    engine = engine_table(result["engine"])
    header = ["per image", "vote", "precision", "recall", "F1", "mean IoU", "attributes", "relations F1"]
    return "\n".join(
        [
            "## Crowds through the app's services",
            "",
            f"Command: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt {command}` (commit {commit()}, {machine()});",
            f"{result['seconds']:.0f} s. The crowd app itself, on PostgreSQL: the queue, the copies' save and submit, the",
            "merge on the last submit, the reliability refresh task, the review and gold services, the pause rule,",
            "with the collection's default settings but the overlap (`benchmarks/crowd_services.py` says how);",
            "the section above measures the statistics alone (`crowd.consensus`) on the same crowd.",
            f"The truth and the annotators are the section above's ({a.scenes} scenes, seed {a.seed}); {a.gold} more",
            "scenes are drawn by an earlier crowd, merged, corrected to the truth by the reviewer and marked gold first. Figures are read",
            f"from the stored rows, on the {a.scenes} scenes (gold aside); each annotator is measured on the images",
            "the queue gave them, so the seats are the queue's, not drawn.",
            "",
            "| target | measured | |",
            "|---|---|---|",
            *("| " + " | ".join(t) + " |" for t in targets(result)),
            "",
            'The merges as stored ("weighted": the share of merges that weighed votes by a stored estimate; the',
            "first merges of a collection have none yet; review: the share left waiting for a reviewer with",
            "automatic acceptance on, at the default agreement threshold):",
            "",
            *_table([*header, "weighted", "review"], _merge_rows(result)),
            "",
            "Each annotator on the images the queue gave them at 3 per image (weighted run), their gold work",
            "there, and after how many gold images the app paused them in each run:",
            "",
            *_table(
                [
                    "annotator",
                    "images",
                    *header[2:],
                    "gold images",
                    "gold accuracy",
                    "paused after (gold images)",
                ],
                _annotator_rows(result),
            ),
            "",
            f"The engine fitted on the {a.scenes} scenes as stored, with the engine-p guesser on {a.test} held-out",
            "scenes (seed 2; default engine settings; 95% Wilson interval):",
            "",
            *_table(["fitted on", "answered questions", "mean stream length", "engine-p guesser"], engine),
        ]
    )
