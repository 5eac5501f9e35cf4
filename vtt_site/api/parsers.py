"""The JSON parser of every API view: `vtt_site.safejson` limits instead of a RecursionError or a
number that overflows a column later, with the limit from the settings."""

from __future__ import annotations

import json

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from vtt_site import safejson


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read() if stream is not None else b""
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
