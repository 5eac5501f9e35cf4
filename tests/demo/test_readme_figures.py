"""The README's figures about the demo are what the demo set-up builds (issue 38: it said "a few hundred
reviewed training images" of a demo with 2,591, and 264 questions on a test whose card showed 232). The
sizes are the set-up's own constants; a figure that only a full run can tell (the questions) is left to
the test's card."""

from __future__ import annotations

import re
from pathlib import Path

from demo import services as demo

README = (Path(__file__).parents[2] / "README.md").read_text()


def figure(text: str) -> int:
    return int(text.replace(",", ""))


def test_the_readme_gives_the_demo_collection_the_setup_builds():
    sentence = re.search(
        r"([\d,]+) reviewed\s+training images: ([\d,]+) rendered with their pixels and ([\d,]+) scene "
        r"graphs without; ([\d,]+) test images; ([\d,]+)\s+images waiting for annotation",
        README,
    )
    assert sentence, "the README no longer describes the demo collection in the words this test reads"
    total, rendered, graphs, test, waiting = (figure(g) for g in sentence.groups())
    assert (rendered, graphs, test, waiting) == (demo.TRAIN, demo.GRAPHS_ONLY, demo.TEST, demo.WAITING)
    assert total == demo.TRAIN + demo.GRAPHS_ONLY


def test_the_readme_gives_the_demo_tests_the_setup_builds():
    published = re.search(r'"Demo test, truthed by the oracle", on (\d+) test images', README)
    practice = re.search(
        rf'"{re.escape(demo.PRACTICE_TEST)}", a practice test on (\d+) test\s+images', README
    )
    operator = re.search(r"one on (\d+) images waiting for the\s+demo operator", README)
    assert published and practice and operator
    assert figure(published.group(1)) == demo.AUTOMATIC_IMAGES
    assert figure(practice.group(1)) == demo.PRACTICE_IMAGES
    assert figure(operator.group(1)) == demo.BLIND_IMAGES
