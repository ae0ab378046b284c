"""Turn serializer errors into `FieldError`s that know both the /api/v1 and the /v2 wording.

The serializer knows *which* field failed; the field's class and the raw input tell *how* (a type
error such as a number where a string belongs, or a value error such as a bad URL), which is what
decides 400 versus 422 on /api/v1 and the pydantic-v1 type name on /v2.
"""

from __future__ import annotations

from collections.abc import Iterator

from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail
from rest_framework.settings import api_settings

from core.api.errors import FieldError, RequestInvalid

_MISSING = object()

# (v2 type, v2 message) for a value of the wrong JSON type, by field class (most specific first).
_TYPE_ERRORS: list[tuple[type, str, str]] = [
    (serializers.BooleanField, "type_error.bool", "value could not be parsed to a boolean"),
    (serializers.IntegerField, "type_error.integer", "value is not a valid integer"),
    (serializers.FloatField, "type_error.float", "value is not a valid float"),
    (serializers.DecimalField, "type_error.decimal", "value is not a valid decimal"),
    (serializers.ListField, "type_error.list", "value is not a valid list"),
    (serializers.ListSerializer, "type_error.list", "value is not a valid list"),
    (serializers.MultipleChoiceField, "type_error.list", "value is not a valid list"),
    (serializers.DictField, "type_error.dict", "value is not a valid dict"),
    (serializers.JSONField, "type_error.dict", "value is not a valid dict"),
    (serializers.Serializer, "type_error.dict", "value is not a valid dict"),
    (serializers.DateTimeField, "type_error.datetime", "invalid datetime format"),
    (serializers.CharField, "type_error.str", "str type expected"),
    (serializers.ChoiceField, "type_error.enum", "value is not a valid enumeration member"),
]
_TYPE_CODES = {"invalid", "not_a_list", "not_a_dict", "not_a_string", "parse_error", "date"}


def validated(
    serializer_class,
    data,
    *,
    context: dict | None = None,
    partial: bool = False,
    reject_unknown: bool = False,
) -> dict:
    """`reject_unknown` (updates): a field the serializer does not declare is an error, never ignored,
    so `tenant`, `id` or a secret sent to a PATCH cannot look as if it had been applied."""
    serializer = serializer_class(data=data, context=context or {}, partial=partial)
    valid = serializer.is_valid()
    # A field the serializer already explains (its own, clearer message) is not reported twice.
    unknown = []
    if reject_unknown:
        unknown = [e for e in _unknown_fields(serializer, data) if e.loc[0] not in serializer.errors]
    if not valid or unknown:
        raise RequestInvalid([*field_errors(serializer), *unknown])
    return serializer.validated_data


def _unknown_fields(serializer: serializers.Serializer, data) -> list[FieldError]:
    if not isinstance(data, dict):
        return []
    allowed = {name for name, field in serializer.fields.items() if not field.read_only}
    return [
        FieldError(
            (key,),
            f"Unknown field '{key}': it cannot be set here.",
            "value_error.extra",
            "extra fields not permitted",
            shape=True,
        )
        for key in data
        if key not in allowed
    ]


def field_errors(serializer: serializers.Serializer) -> list[FieldError]:
    return list(_walk(serializer, serializer.errors, (), serializer.initial_data))


def _walk(field, errors, path: tuple, raw) -> Iterator[FieldError]:
    if isinstance(errors, dict):
        for key, sub in errors.items():
            if key == api_settings.NON_FIELD_ERRORS_KEY:
                yield from _walk(field, sub, path, raw)
                continue
            yield from _walk(_child(field, key), sub, (*path, _as_index(key)), _raw_child(raw, key))
    elif isinstance(errors, list) and all(isinstance(e, ErrorDetail) for e in errors):
        for detail in errors:
            yield _describe(field, detail, path, raw)
    elif isinstance(errors, list):
        for index, sub in enumerate(errors):
            if sub:
                yield from _walk(_child(field, index), sub, (*path, index), _raw_child(raw, index))


def _child(field, key):
    if isinstance(field, serializers.ListSerializer):
        return field.child
    if isinstance(field, serializers.Serializer):
        return field.fields.get(key)
    return getattr(field, "child", None)


def _raw_child(raw, key):
    if isinstance(raw, dict):
        return raw.get(key, _MISSING)
    if isinstance(raw, list) and isinstance(key, int) and key < len(raw):
        return raw[key]
    return _MISSING


def _as_index(key):
    return int(key) if isinstance(key, str) and key.isdigit() else key


def _describe(field, detail: ErrorDetail, path: tuple, raw) -> FieldError:
    code = getattr(detail, "code", "invalid")
    message = str(detail)
    if code == "required":
        return FieldError(path, message, "value_error.missing", "field required", shape=True)
    if code == "null":
        return FieldError(path, message, "type_error.none.not_allowed", "none is not an allowed value", True)
    if code in _TYPE_CODES and _is_type_mismatch(field, raw):
        v2_type, v2_msg = _type_error_for(field)
        return FieldError(path, message, v2_type, v2_msg, shape=True)
    if code == "invalid_choice":
        choices = ", ".join(f"'{c}'" for c in getattr(field, "choices", {}) or {})
        return FieldError(
            path, message, "value_error.const", f"unexpected value; permitted: {choices}", False
        )
    v2_type = code if "error." in code else _VALUE_TYPES.get(code, "value_error")
    return FieldError(path, message, v2_type, message, shape=False)


_VALUE_TYPES = {
    "max_length": "value_error.any_str.max_length",
    "min_length": "value_error.any_str.min_length",
    "blank": "value_error.any_str.min_length",
    "max_value": "value_error.number.not_le",
    "min_value": "value_error.number.not_ge",
    "empty": "value_error.list.min_items",
    "max_string_length": "value_error.any_str.max_length",
}


def _is_type_mismatch(field, raw) -> bool:
    """A string-typed field saying `invalid` about a string is a value error (bad URL, bad UUID)."""
    if isinstance(field, serializers.CharField | serializers.UUIDField | serializers.ChoiceField):
        return not isinstance(raw, str)
    return True


def _type_error_for(field) -> tuple[str, str]:
    for cls, v2_type, v2_msg in _TYPE_ERRORS:
        if isinstance(field, cls):
            return v2_type, v2_msg
    if field is None:
        return "type_error.dict", "value is not a valid dict"
    return "type_error", "invalid type"
