"""The API's JSON renderer writes the bytes DRF's own renderer writes (it only writes them faster)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils.translation import gettext_lazy
from rest_framework import renderers
from rest_framework.exceptions import ErrorDetail
from rest_framework.utils.serializer_helpers import ReturnDict, ReturnList

from core.api.renderers import JSONRenderer, render_json

BODIES = [
    {"success": True, "message": "Credentials retrieved.", "data": {"credentials": [], "n": 0}},
    {
        "text": "naïve café ✓ 日本",
        "separators": "line\u2028paragraph\u2029end",
        "when": datetime(2026, 11, 21, 9, 30, 0, 123456, tzinfo=UTC),
        "day": date(2026, 11, 21),
        "span": timedelta(seconds=90),
        "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "amount": Decimal("12.50"),
        "lazy": gettext_lazy("Not found."),
        "detail": ErrorDetail("This field is required.", code="required"),
        "numbers": [0, -1, 2**63 - 1, 1.5, 0.1, None, True, False],
        "nested": ReturnDict({"list": ReturnList([{"a": 1}], serializer=None)}, serializer=None),
        "tuple": (1, "two"),
        1: "an integer key",
    },
    {"quotes": "\u201cquoted\u201d \u2013 \u2026 \u20ac", "ascii": "only"},  # other characters from byte E2
]


@pytest.mark.parametrize("body", BODIES)
def test_the_bytes_are_drfs(body):
    assert render_json(body) == renderers.JSONRenderer().render(body)


def test_line_and_paragraph_separators_are_escaped_as_drf_escapes_them():
    assert render_json({"s": "a\u2028b\u2029c"}) == b'{"s":"a\\u2028b\\u2029c"}'


def test_an_integer_wider_than_64_bits_is_rendered_as_drf_renders_it():
    assert json.loads(render_json({"big": 2**80})) == {"big": 2**80}


def test_an_indented_answer_is_drfs_indented_answer():
    body = {"a": [1, {"b": "c"}]}
    media = "application/json; indent=2"
    assert JSONRenderer().render(body, media) == renderers.JSONRenderer().render(body, media)
    assert b"\n  " in JSONRenderer().render(body, media)


def test_a_value_json_cannot_hold_is_refused_as_drf_refuses_it():
    with pytest.raises(TypeError):
        render_json({"unknown": object()})


def test_nothing_renders_as_an_empty_body():
    assert JSONRenderer().render(None) == b""


def test_every_api_response_goes_through_it(client):
    response = client.get("/health")
    assert isinstance(response.accepted_renderer, JSONRenderer)
