"""Request body parsing with the limits of DESIGN section 12: size, depth, strict UTF-8 and JSON."""

from __future__ import annotations

import json

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from core.api.errors import PayloadTooLarge

MAX_DEPTH = 32


def read_limited(stream) -> bytes:
    limit = settings.API_MAX_BODY_BYTES
    if stream is None:
        return b""
    body = stream.read(limit + 1)
    if len(body) > limit:
        raise PayloadTooLarge(f"Request body exceeds the limit of {limit} bytes.")
    return body


class StrictJSONParser(BaseParser):
    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None):
        body = read_limited(stream)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError("Request body is not valid UTF-8.") from exc
        try:
            data = json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as exc:
            raise ParseError(f"Malformed JSON: {exc}") from exc
        if _depth(data) > MAX_DEPTH:
            raise ParseError(f"JSON nested deeper than {MAX_DEPTH} levels.")
        return data


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def _depth(value, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((_depth(v, level + 1) for v in value), default=level + 1)
    return level
