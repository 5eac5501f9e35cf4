"""JSON read with limits a hostile document cannot get past: nesting depth and number size.

Python's parser recurses once per nesting level, so a 2 KB body of a thousand `[` ends in a
RecursionError, and it turns `1e999` into infinity and a 400-digit integer into an int no column can
hold. `loads` refuses all of these with `UnsafeJSON`, a ValueError whose message a person can act on.
Plain Python on purpose: the API parser (`vtt_site.api.parsers`) and the import formats
(`datasets.formats`) use the same rules.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

DEFAULT_MAX_DEPTH = 64
# The widest integer any field or column of the platform holds (a signed 64-bit integer).
MAX_INT = 2**63 - 1

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_INNERMOST = re.compile(rb"\[\]|\{\}")


class UnsafeJSON(ValueError):
    """The document is nested too deeply or holds a number out of range (`token`: that number)."""

    def __init__(self, message: str, token: str = "") -> None:
        super().__init__(message)
        self.token = token

    def where_in(self, text: str) -> str:
        """`line L column C` of the offending number in `text`, or "" when it cannot be told."""
        position = text.find(self.token) if self.token else -1
        if position < 0:
            return ""
        line = text.count("\n", 0, position) + 1
        return f"line {line} column {position - text.rfind(chr(10), 0, position)}"


def loads(data: bytes | str, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """`json.loads` that refuses what would exhaust the parser or overflow a field.

    Raises `json.JSONDecodeError` for malformed JSON, `UnicodeDecodeError` for bytes that are not
    UTF-8 and `UnsafeJSON` for too deep a nesting or too large a number (all ValueErrors).
    """
    raw = data.encode() if isinstance(data, str) else data
    check_depth(raw, max_depth)
    text = raw.decode("utf-8")
    try:
        return json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except RecursionError:  # unbalanced brackets the depth check could not pair up
        raise UnsafeJSON(f"JSON may be nested at most {max_depth} levels deep.") from None


def check_depth(raw: bytes, max_depth: int) -> None:
    """Refuse nesting deeper than `max_depth` before anything is parsed, in C-speed passes: strings are
    blanked, everything but brackets dropped, and innermost pairs removed once per level."""
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKET)
    for _ in range(max_depth):
        if not brackets:
            return
        shorter = _INNERMOST.sub(b"", brackets)  # one pass: exactly one level goes
        if shorter == brackets:
            return  # unbalanced: malformed, which the parser reports with its position
        brackets = shorter
    if _INNERMOST.search(brackets):
        raise UnsafeJSON(f"JSON may be nested at most {max_depth} levels deep.")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 19 or abs(value := int(text)) > MAX_INT:
        raise UnsafeJSON(
            f"the number {_short(text)} is too large (at most {MAX_INT:,} in absolute value)", text
        )
    return value


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise UnsafeJSON(f"the number {_short(text)} is too large", text)
    return value


def _constant(text: str) -> float:
    raise UnsafeJSON(f"{text} is not a number JSON allows", text)


def _short(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:12]}…({len(text)} characters)"
