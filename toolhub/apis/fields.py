"""Input fields that take JSON strings only: DRF would turn a number or a boolean into a string,
which hides a wrong type (a 400) behind a value error or an accepted value."""

from __future__ import annotations

from rest_framework import serializers


class _StringsOnly:
    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StringField(_StringsOnly, serializers.CharField):
    default_error_messages = {"invalid": "Must be a string."}


class UrlStringField(_StringsOnly, serializers.URLField):
    pass


class StrictBooleanField(serializers.BooleanField):
    """true or false, not "yes", 1 or "on"."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data
