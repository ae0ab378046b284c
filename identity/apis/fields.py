"""Serializer fields, schema helpers and output helpers shared by the identity endpoints."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import (
    extend_schema_field,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import serializers

from core.api.schema import PaginationSerializer, page_parameters, v1_envelope
from core.scopes import split_list


@extend_schema_field({"oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]})
class ListOrCommaField(serializers.Field):
    """An array of strings or a comma-separated string; always a list of trimmed items."""

    default_error_messages = {
        "invalid": "Expected an array of strings or a comma-separated string.",
        "max_items": "At most {max_items} items.",
        "max_item_length": "Each item may have at most {max_length} characters.",
        "control": "Items may not contain control characters.",
    }

    def __init__(self, *, max_items: int = 100, max_item_length: int = 200, **kwargs):
        self.max_items, self.max_item_length = max_items, max_item_length
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str | list) or (
            isinstance(data, list) and not all(isinstance(i, str) for i in data)
        ):
            self.fail("invalid")
        items = split_list(data)
        if len(items) > self.max_items:
            self.fail("max_items", max_items=self.max_items)
        if any(len(i) > self.max_item_length for i in items):
            self.fail("max_item_length", max_length=self.max_item_length)
        if any(has_control(i) for i in items):
            self.fail("control")
        return items

    def to_representation(self, value):
        return list(value)


def record(component: str, **fields) -> serializers.Serializer:
    """A response object for the schema; fields given as serializer fields."""
    return inline_serializer(name=component, fields=fields)


PAGE_PARAMETERS = page_parameters()


def page_envelope(
    envelope: str, page: str, name: str, items: serializers.Serializer
) -> serializers.Serializer:
    """The /api/v1 body of a list, `data: {name: [...], pagination}`: one object, which
    drf-spectacular would otherwise show as an array of them for a viewset's `list`."""
    body = v1_envelope(envelope, record(page, **{name: items, "pagination": PaginationSerializer()}))
    extend_schema_serializer(many=False)(type(body))
    return body


def per_day(count: int, used) -> float:
    """`count` a day since `used` (a key or client) was first used, or created; at least a day."""
    since = used.first_used_at or used.created_at
    return round(count / max(1, (timezone.now() - since).days), 2)


def obj(**kwargs) -> serializers.DictField:
    return serializers.DictField(**kwargs)


def text(**kwargs) -> serializers.CharField:
    return serializers.CharField(**kwargs)


def strings(**kwargs) -> serializers.ListField:
    return serializers.ListField(child=serializers.CharField(), **kwargs)


def when(**kwargs) -> serializers.CharField:
    return serializers.CharField(allow_null=True, help_text="ISO 8601 UTC with milliseconds", **kwargs)


def has_control(value) -> bool:
    """True when a string anywhere in `value` holds a control character (PostgreSQL refuses NUL)."""
    if isinstance(value, str):
        return any(ord(ch) < 32 for ch in value)
    if isinstance(value, dict):
        return any(has_control(k) or has_control(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_control(v) for v in value)
    return False
