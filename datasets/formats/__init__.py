"""Scene graphs in and out of files: the registry of formats (`registry.py`) and one module per format.

A format is added by writing its module (see `jsonl.py` for the smallest) and importing it below,
by a plain import statement (mypy and import-linter see it), where the order is the order people see
the formats in. docs/recipes.md lists the rest.
"""

from datasets.formats.jsonl import jsonl_line
from datasets.formats.records import Record, RecordError, record_size_error
from datasets.formats.registry import (
    ReadContext,
    Reading,
    SceneFormat,
    UnknownFormat,
    WriteContext,
    format_choices,
    format_values,
    scene_format,
    scene_formats,
)

# Each module registers its format when it is imported, so the order of this import is the order
# people see the formats in: the import sorter leaves it as written.
# isort: off
from datasets.formats import jsonl, coco, visual_genome, gqa, open_images
# isort: on

FORMAT_MODULES = (jsonl, coco, visual_genome, gqa, open_images)

__all__ = [
    "ReadContext",
    "Reading",
    "Record",
    "RecordError",
    "SceneFormat",
    "UnknownFormat",
    "WriteContext",
    "format_choices",
    "format_values",
    "jsonl_line",
    "record_size_error",
    "scene_format",
    "scene_formats",
]
