"""`vtt-engine audit` end to end on a small made-up vocabulary's scenes: report and picture written."""

from __future__ import annotations

import json

from demo.parking.scenes import VOCABULARY, generate_scenes
from engine.console import main


def write(path, count, seed):
    with path.open("w") as handle:
        for scene in generate_scenes(count, seed):
            handle.write(json.dumps(scene) + "\n")
    return path


def test_vtt_engine_audit_writes_a_report_and_a_reliability_diagram(tmp_path, capsys):
    train, test = write(tmp_path / "train.jsonl", 120, 1), write(tmp_path / "test.jsonl", 6, 2)
    out = tmp_path / "audit"
    arguments = ["audit", "--vocabulary", str(VOCABULARY), "--train", str(train), "--test", str(test)]
    arguments += ["--out", str(out), "--folds", "2", "--train-streams", "12", "--min-population", "10"]
    assert main(arguments) == 0
    summary = json.loads(capsys.readouterr().out)
    report = json.loads((out / "audit.json").read_text())
    assert report["held_out_streams"] == 6 and report["training_streams"] == 12
    assert summary["engine_p"] == round(report["engine_p"]["accuracy"], 4)
    assert (out / "reliability.svg").read_text().startswith("<svg")


def test_bad_input_is_refused_with_status_2(tmp_path, capsys):
    missing = tmp_path / "nope.jsonl"
    arguments = ["audit", "--vocabulary", str(VOCABULARY), "--train", str(missing), "--test", str(missing)]
    assert main([*arguments, "--out", str(tmp_path / "a")]) == 2
    assert "nope.jsonl" in capsys.readouterr().err
