"""The words a model is given: template files (string.Template), shipped in vtt_client/runner/templates/.

`--prompts DIR` overrides any of them: a file of the same name in DIR replaces the default one, and a
`phrases.txt` there replaces the default phrases it names (the others stay). Every template is checked
when it is loaded, so a misspelt `$variable` stops the run before the first question, not in the middle.

- system.txt, system_blind.txt: the system prompt of a seeing run ($drawing: how the image is shown)
  and of a blind run.
- question.txt: the current question's turn ($revealed, $labels, $text, $region).
- past_question.txt: an earlier question of the stream ($revealed, $text, $region).
- strict.txt: the one retry after a reply that says neither yes nor no.
- phrases.txt: the sentences the turns are made of, one a line (`name = text`), see the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

# Each template and the variables it may use.
TURN_VARIABLES: dict[str, set[str]] = {
    "system": {"drawing"},
    "system_blind": set(),
    "question": {"revealed", "labels", "text", "region"},
    "past_question": {"revealed", "text", "region"},
    "strict": set(),
}
_BOX = {"x0", "y0", "x1", "y1"}
PHRASE_VARIABLES: dict[str, set[str]] = {
    "drawing_on": set(),
    "drawing_off": set(),
    "region_words": _BOX | {"width", "height"},
    "region_drawn": _BOX | {"width", "height"},
    "region_both": _BOX | {"width", "height"},
    "label_words": _BOX | {"label", "type"},
    "label_drawn": _BOX | {"label", "type"},
    "label_both": _BOX | {"label", "type"},
    "revealed": {"truth"},
    "revealed_label": {"truth", "label", "type"},
}
_PHRASE_LINE = re.compile(r"^([a-z_]+)\s*=\s*(.*)$")


class PromptError(Exception):
    """A template that cannot be used, said for the person who wrote it."""


@dataclass(frozen=True)
class Prompts:
    turns: dict[str, Template]
    phrases: dict[str, Template]

    def turn(self, name: str, **values: str) -> str:
        return tidy(self.turns[name].substitute(values))

    def phrase(self, name: str, **values: object) -> str:
        return self.phrases[name].substitute({key: str(value) for key, value in values.items()})


def tidy(text: str) -> str:
    """A rendered turn without the blank lines its empty variables left: at most one blank line between
    paragraphs, none at either end."""
    lines = [line.rstrip() for line in text.splitlines()]
    kept: list[str] = []
    for line in lines:
        if line or (kept and kept[-1]):
            kept.append(line)
    return "\n".join(kept).strip("\n")


def load_prompts(directory: Path | None = None) -> Prompts:
    """The default templates, with those in `directory` (if given) in their place."""
    defaults = resources.files("vtt_client.runner").joinpath("templates")
    if directory is not None and not directory.is_dir():
        raise PromptError(f"There is no folder {directory} of prompt templates.")
    turns: dict[str, Template] = {}
    for name, allowed in TURN_VARIABLES.items():
        file = f"{name}.txt"
        custom = directory / file if directory is not None else None
        if custom is not None and custom.is_file():
            text, source = custom.read_text(encoding="utf-8"), str(custom)
        else:
            text, source = defaults.joinpath(file).read_text(encoding="utf-8"), file
        turns[name] = _checked(Template(text.strip("\n")), allowed, source)
    phrases = _phrases(defaults.joinpath("phrases.txt").read_text(encoding="utf-8"), "phrases.txt")
    if directory is not None and (directory / "phrases.txt").is_file():
        custom_file = directory / "phrases.txt"
        phrases |= _phrases(custom_file.read_text(encoding="utf-8"), str(custom_file))
    return Prompts(turns, phrases)


def _phrases(text: str, source: str) -> dict[str, Template]:
    phrases: dict[str, Template] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _PHRASE_LINE.match(line.strip())
        if match is None or match[1] not in PHRASE_VARIABLES:
            known = ", ".join(PHRASE_VARIABLES)
            raise PromptError(f"{source} line {number}: expected `name = text` with a name among {known}.")
        phrases[match[1]] = _checked(Template(match[2]), PHRASE_VARIABLES[match[1]], f"{source} ({match[1]})")
    return phrases


def _checked(template: Template, allowed: set[str], source: str) -> Template:
    """The template, if it uses only the variables it is given (read with its own pattern, as
    Template.get_identifiers does from Python 3.11 on)."""
    used: set[str] = set()
    for match in template.pattern.finditer(template.template):
        if match["invalid"] is not None:
            raise PromptError(f"{source} has a $ that starts no variable (write $$ for a dollar sign).")
        used.add(match["named"] or match["braced"] or "")
    unknown = sorted(used - allowed - {""})
    if unknown:
        offered = ", ".join(f"${name}" for name in sorted(allowed)) or "none"
        raise PromptError(f"{source} uses ${unknown[0]}, which it is not given (it is given: {offered}).")
    return template
