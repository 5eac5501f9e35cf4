"""Scene graphs in and out of files: the registry of formats (`registry.py`) and one module per format.

A format is added by writing its module (see `jsonl.py` for the smallest) and naming it in
`FORMAT_MODULES`, whose order is the order people see the formats in. docs/recipes.md lists the rest.
"""

from importlib import import_module

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

# Each module registers its format when it is imported.
FORMAT_MODULES = ("jsonl", "coco", "visual_genome", "gqa", "open_images")
for _module in FORMAT_MODULES:
    import_module(f"datasets.formats.{_module}")

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
