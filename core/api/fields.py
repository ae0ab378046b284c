"""Input fields that take exactly their JSON type. DRF would turn a number or a boolean into a
string and "10" or true into an integer, which hides a wrong type (a 400, or 422 on /v2) behind a
value error or an accepted value."""

from __future__ import annotations

from django.core.validators import RegexValidator
from rest_framework import serializers


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


class StrictURLField(_StringOnly, serializers.URLField):
    pass


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
