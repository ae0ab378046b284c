"""Input fields that take exactly their JSON type. DRF would turn a number or a boolean into a
string and "10" or true into an integer, which hides a wrong type (a 400, or 422 on /v2) behind a
value error or an accepted value."""

from __future__ import annotations

import re

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.outbound import OutboundRefused, url_parts


class _StringOnly:
    """A JSON string: a wrong JSON type fails with its own code and says so (a field's own `invalid`
    message is about the value)."""

    default_error_messages = {"not_a_string": "Not a valid string: a JSON string is required."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("not_a_string")
        return super().to_internal_value(data)


class StrictCharField(_StringOnly, serializers.CharField):
    pass


class UntrimmedText(StrictCharField):
    """A JSON string kept as sent (a password, a token, a secret): no whitespace trimmed, so one of
    only spaces is a value (its schema: `core.api.schema.UntrimmedTextSchema`)."""

    def __init__(self, **kwargs):
        kwargs["trim_whitespace"] = False
        super().__init__(**kwargs)


# What `url_parts` takes and the outbound guard lets through when a URL is stored, as a pattern:
# http(s), a dotted host name (an IP address or a single label such as `localhost` may name a
# private address), an optional port, a path of printable ASCII without spaces or backslashes (no
# user name: no `@` before the path).
LABEL = "[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"  # a host name label: no `-` at either end
HOST_PATTERN = f"{LABEL}(?:\\.{LABEL}){{1,3}}(?::[1-9][0-9]{{0,3}})?"
URL_PATTERN = f"^(?:[Hh][Tt][Tt][Pp][Ss]?://{HOST_PATTERN}(?:[/?#][!-\\[\\]-~]*)?)?$"
HTTPS_URL_PATTERN = f'^https://{HOST_PATTERN}(?:/[!-"$->@-\\[\\]-~]*)?$'  # no query, no fragment


@extend_schema_field({"type": "string", "pattern": URL_PATTERN, "maxLength": 2048})
class UrlField(_StringOnly, serializers.CharField):
    """An http(s) URL, read and checked by the one rule of every URL field (`core.outbound.url_parts`,
    the reading the outbound client connects with); the /v2 types are pydantic's."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 2048)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        try:
            url_parts(value)
        except OutboundRefused as refusal:
            kind = "scheme" if "http and https" in refusal.reason else "host"
            raise serializers.ValidationError(
                f"Invalid URL format: {refusal.reason}", code=f"value_error.url.{kind}"
            ) from None
        return value


def matches_pattern(pattern: str, value: str) -> bool:
    """Whether `value` matches a schema's `pattern` as a JSON Schema validator reads it: a search,
    where `$` is the end of the value (Python's `$` would also take a trailing newline)."""
    return re.search(pattern, value) is not None and not value.endswith("\n")


class StrictChoiceField(_StringOnly, serializers.ChoiceField):
    pass


class StrictRegexField(StrictCharField):
    def __init__(self, regex: str, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(RegexValidator(regex, message=self.error_messages["invalid"]))


class StrictIntegerField(serializers.IntegerField):
    """A JSON number with an integral value: not a string ("10") or a boolean DRF would convert."""

    def to_internal_value(self, data):
        integral = isinstance(data, int) or (isinstance(data, float) and data.is_integer())
        if isinstance(data, bool) or not integral:
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """true or false, not "yes", 1 or "on"."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


def holds_nul(value) -> bool:
    """Whether a JSON value holds a NUL character in a string or a key: no database text can keep
    one (PostgreSQL refuses it), so a body that sends one is refused, not half-stored."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(holds_nul(key) or holds_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(holds_nul(item) for item in value)
    return False
