"""The JSON parser of every API view: `kernel.safejson` limits instead of a RecursionError or a
number that overflows a column later, with the limit from the settings, and a limit on the body's size
per operation.

The size limit: a view names what its operation can need (`json_body_max_bytes`, in bytes); any other
takes `JSON_BODY_MAX_BYTES`. A body over it is refused with a 413 in the error shape from its
Content-Length, before a byte is read, or, without one, after reading one byte past the limit. A JSON
body is parsed whole in memory, and Python's objects take ten to fifty times its size, so a 50 MiB body
(the largest request, which imports and uploads need) took a worker to 2.9 GB; an answer is a few
hundred bytes (decision 0047-json-body-limits).
"""

from __future__ import annotations

import json

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser
from rest_framework.renderers import JSONRenderer

from kernel import safejson
from vtt_site.errors import CommonErrorCode, TooLargeError

# What the operations that name their own limit take (`json_body_max_bytes = ...` on the view).
ANSWER_BODY_BYTES = 8 * 1024  # an answer (yes or no, a label with its box): a few hundred bytes
ANNOTATION_BODY_BYTES = 4 * 1024 * 1024  # 1,000 objects and 20,000 relationships: about 1.3 MB
VOCABULARY_BODY_BYTES = 1024 * 1024
TEST_BODY_BYTES = 512 * 1024  # a test of 10,000 image ids


class SafeJSONParser(BaseParser):
    """Not a subclass of DRF's JSONParser on purpose: DRF reads the whole body of a JSONParser's request
    into memory before the parser is called (`Request._parse`), and this parser reads at most the limit."""

    media_type = "application/json"
    renderer_class = JSONRenderer

    def parse(self, stream, media_type=None, parser_context=None):
        limit = json_body_limit((parser_context or {}).get("view"))
        request = (parser_context or {}).get("request")
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0) if request is not None else 0
        except ValueError:
            declared = 0
        if declared > limit:
            raise body_too_large(declared, limit)
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise body_too_large(None, limit)
        try:
            return safejson.loads(raw, max_depth=settings.JSON_MAX_DEPTH)
        except safejson.UnsafeJSON as exc:
            raise ParseError(f"The JSON body is refused: {exc}.") from None
        except UnicodeDecodeError:
            raise ParseError("The JSON body is not valid UTF-8.") from None
        except json.JSONDecodeError as exc:
            raise ParseError(
                f"The JSON body is malformed: {exc.msg} at line {exc.lineno} column {exc.colno}."
            ) from None


def json_body_limit(view) -> int:
    """The largest JSON body `view`'s operation takes, in bytes."""
    own = getattr(view, "json_body_max_bytes", None)
    return int(own) if own is not None else settings.JSON_BODY_MAX_BYTES


def body_too_large(size: int | None, limit: int) -> TooLargeError:
    told = f"The JSON body has {size:,} bytes" if size is not None else "The JSON body is longer than that"
    return TooLargeError(
        CommonErrorCode.TOO_LARGE,
        f"{told}; this operation takes at most {limit:,} bytes. Send less at once.",
    )
