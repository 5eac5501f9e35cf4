"""`vtt-engine` as a user runs it: a separate process, no Django, no database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from demo.synthetic.scenes import generate_scenes
from tests.engine.core.random_scenes import DEFAULT_VOCABULARY

ENGINE = [sys.executable, "-m", "engine"]
CONSOLE_SCRIPT = Path(sys.executable).parent / "vtt-engine"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run([*ENGINE, *args], capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    (folder / "train.jsonl").write_text("".join(json.dumps(s) + "\n" for s in generate_scenes(600, seed=31)))
    (folder / "test.jsonl").write_text("".join(json.dumps(s) + "\n" for s in generate_scenes(3, seed=32)))
    result = run(
        "fit",
        "--vocabulary",
        str(DEFAULT_VOCABULARY),
        "--scenes",
        str(folder / "train.jsonl"),
        "--out",
        str(folder / "stats.npz"),
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["images"] == 600
    return folder


def test_the_console_script_is_installed():
    result = subprocess.run([str(CONSOLE_SCRIPT), "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "fit" in result.stdout and "generate" in result.stdout


def test_generate_prints_one_json_line_per_proposal(files):
    result = run(
        "generate", "--stats", str(files / "stats.npz"), "--scenes", str(files / "test.jsonl"), "--seed", "4"
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert {line["image"] for line in lines} == {f"synthetic-32-{i:06d}.png" for i in range(3)}
    for line in lines:
        assert {"image", "index", "question", "text", "p", "population", "answer"} <= set(line)
        assert line["answer"] in {"yes", "no", "ambiguous"}
        assert ("label" in line) == (line["question"]["kind"] == "unique" and line["answer"] == "yes")
    first_image = [line for line in lines if line["image"].endswith("000000.png")]
    assert [line["index"] for line in first_image] == list(range(len(first_image)))
    again = run(
        "generate", "--stats", str(files / "stats.npz"), "--scenes", str(files / "test.jsonl"), "--seed", "4"
    )
    assert again.stdout == result.stdout


def test_generate_honours_the_settings(files):
    result = run(
        "generate",
        "--stats",
        str(files / "stats.npz"),
        "--scenes",
        str(files / "test.jsonl"),
        "--seed",
        "4",
        "--epsilon",
        "0.05",
        "--min-population",
        "40",
        "--max-questions",
        "5",
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert all(abs(line["p"] - 0.5) <= 0.05 + 1e-12 and line["population"] >= 40 for line in lines)
    for i in range(3):
        answered = [x for x in lines if x["image"].endswith(f"{i:06d}.png") and x["answer"] != "ambiguous"]
        assert len(answered) <= 5


def test_estimate_after_a_history(files):
    history = files / "history.json"
    history.write_text(
        json.dumps(
            [
                {
                    "question": {
                        "kind": "unique",
                        "type": "person",
                        "attributes": ["female"],
                        "region": {"id": "whole"},
                    },
                    "answer": "yes",
                }
            ]
        )
    )
    question = files / "question.json"
    question.write_text(json.dumps({"kind": "attr", "label": "person 1", "attributes": ["female"]}))
    result = run(
        "estimate",
        "--stats",
        str(files / "stats.npz"),
        "--history",
        str(history),
        "--question",
        str(question),
        "--width",
        "640",
        "--height",
        "480",
    )
    assert result.returncode == 0, result.stderr
    # The instantiating question said she is female: certain, over every known person of the set.
    estimate = json.loads(result.stdout)
    assert estimate["p"] == 1.0 and estimate["population"] > 100


@pytest.mark.parametrize(
    ("history", "question", "message"),
    [
        (
            "[]",
            '{"kind": "attr", "label": "person 1", "attributes": ["male"]}',
            "person 1 has not been instantiated",
        ),
        (
            "[]",
            '{"kind": "attr", "label": "person 1", "attributes": ["purple"]}',
            "'purple' is not an attribute",
        ),
        ("[", '{"kind": "exist"}', "history.json:1:2: not valid JSON"),
        (
            '[{"question": {"kind": "exist", "type": "person", "region": "whole"}, "answer": "perhaps"}]',
            '{"kind": "exist", "type": "person", "region": "whole"}',
            "history[0].answer: answer must be yes, no",
        ),
    ],
)
def test_estimate_rejects_bad_input_without_a_traceback(files, history, question, message):
    (files / "history.json").write_text(history)
    (files / "question.json").write_text(question)
    result = run(
        "estimate",
        "--stats",
        str(files / "stats.npz"),
        "--history",
        str(files / "history.json"),
        "--question",
        str(files / "question.json"),
        "--width",
        "640",
        "--height",
        "480",
    )
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_a_scene_that_breaks_the_vocabulary_is_named_by_its_line(files):
    bad = files / "bad.jsonl"
    good = (files / "test.jsonl").read_text().splitlines()
    bad.write_text("\n".join([good[0], good[1].replace('"vehicle"', '"tram"', 1), good[2]]) + "\n")
    result = run("generate", "--stats", str(files / "stats.npz"), "--scenes", str(bad), "--seed", "1")
    assert result.returncode == 2 and result.stdout == ""
    assert f"{bad} line 2" in result.stderr and "'tram'" in result.stderr and "Traceback" not in result.stderr


def test_fit_refuses_a_missing_file_and_a_bad_vocabulary(files):
    missing = run(
        "fit",
        "--vocabulary",
        str(DEFAULT_VOCABULARY),
        "--scenes",
        str(files / "nope.jsonl"),
        "--out",
        str(files / "x.npz"),
    )
    assert missing.returncode == 2 and "nope.jsonl" in missing.stderr
    vocabulary = files / "vocabulary.json"
    vocabulary.write_text(
        '{"name": "v", "types": {"person": {"attribute_groups": [{"name": "sex", "values": '
        '["male", "male"]}]}}}'
    )
    bad = run(
        "fit",
        "--vocabulary",
        str(vocabulary),
        "--scenes",
        str(files / "train.jsonl"),
        "--out",
        str(files / "x.npz"),
    )
    assert bad.returncode == 2 and "duplicate attribute value 'male'" in bad.stderr
    assert not (files / "x.npz").exists()
    usage = run("generate", "--stats", str(files / "stats.npz"))
    assert usage.returncode == 2 and "required" in usage.stderr
