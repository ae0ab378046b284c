"""The JSON renderer of every API response: DRF's `JSONRenderer`, its output written by orjson.

DRF encodes with the standard library's `json.dumps` (its encoder class in Python around the C
scanner): a page of 50 credentials cost it about 0.27 ms, orjson 0.02 (docs/performance.md). The
bytes are DRF's: compact separators, UTF-8 (DRF's `UNICODE_JSON`), U+2028 and U+2029 escaped,
anything orjson does not know natively (datetimes, lazy strings, Decimals...) handed to DRF's own
encoder. Where orjson would answer differently it is not used: an indented answer (`Accept:
application/json; indent=4`), or a value orjson refuses (an integer wider than 64 bits), falls back
to DRF's rendering. Two differences remain, both on values no endpoint returns: a float is written in
its shortest form without `+` in the exponent (`1e16`, not `1e+16`, the same number), and NaN or
infinity is written as null where DRF would refuse to render it.
"""

from __future__ import annotations

import orjson
from rest_framework import renderers
from rest_framework.utils.encoders import JSONEncoder

_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS
_drf_default = JSONEncoder().default


class JSONRenderer(renderers.JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        if data is None:
            return b""
        if self.get_indent(accepted_media_type, renderer_context or {}) is not None:
            return super().render(data, accepted_media_type, renderer_context)
        try:
            body = orjson.dumps(data, default=_drf_default, option=_OPTIONS)
        except orjson.JSONEncodeError:
            return super().render(data, accepted_media_type, renderer_context)
        # As DRF does: JSON that is also a strict JavaScript subset. Both characters start with the
        # byte 0xE2, which a search for one byte finds or rules out at memory speed: the two
        # replacements scan a page of 50 credentials for as long as orjson takes to write it.
        if b"\xe2" not in body:
            return body
        return body.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")


def render_json(data) -> bytes:
    """`data` as the API renders a response body (stored bodies that are replayed byte for byte)."""
    return JSONRenderer().render(data)
