"""A quick yes for the common case of a JSON Schema check: a schema made only of the keywords our
tool schemas use is turned once into plain Python predicates, which answer "valid" far faster than
`jsonschema` walks the schema (docs/performance.md). The predicate is sound, never complete: True
means `jsonschema` would find no error; False only means "ask `jsonschema`", which then finds the
errors and words them. A schema with any other keyword gets no predicate at all."""

from __future__ import annotations

import re
from collections.abc import Callable
from numbers import Number

Check = Callable[[object], bool]

# Keywords that only annotate: they never make an instance invalid.
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$comment", "deprecated"})
_KNOWN = _ANNOTATIONS | {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minProperties",
    "const",
}


class _Unsupported(Exception):
    pass


def quick_check(schema: object) -> Check | None:
    """The predicate for `schema`, or None when the schema uses a keyword this module does not
    know (every instance then goes to `jsonschema`)."""
    try:
        return _compile(schema)
    except _Unsupported:
        return None


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# Only what is surely of the type: an integral float is an "integer" for jsonschema, but this
# answers False for it and leaves the question to jsonschema.
_TYPES: dict[str, Check] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: type(v) is int,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def _compile(schema: object) -> Check:
    if schema is True or schema == {}:
        return lambda _v: True
    if not isinstance(schema, dict) or not schema.keys() <= _KNOWN:
        raise _Unsupported()
    checks: list[Check] = []
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not all(name in _TYPES for name in names):
            raise _Unsupported()
        kinds = [_TYPES[name] for name in names]
        checks.append(kinds[0] if len(kinds) == 1 else lambda v: any(kind(v) for kind in kinds))
    checks += _string_checks(schema) + _number_checks(schema) + _object_checks(schema)
    if "items" in schema:
        item = _compile(schema["items"])
        checks.append(lambda v: not isinstance(v, list) or all(item(member) for member in v))
    if "const" in schema:
        const = schema["const"]
        if not isinstance(const, str):
            raise _Unsupported()
        checks.append(lambda v: isinstance(v, str) and v == const)
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(check(v) for check in checks)


def _string_checks(schema: dict) -> list[Check]:
    checks: list[Check] = []
    low, high = schema.get("minLength"), schema.get("maxLength")
    if low is not None or high is not None:
        low, high = low or 0, high if high is not None else float("inf")
        checks.append(lambda v: not isinstance(v, str) or low <= len(v) <= high)
    if "pattern" in schema:
        search = re.compile(schema["pattern"]).search
        checks.append(lambda v: not isinstance(v, str) or search(v) is not None)
    return checks


def _number_checks(schema: dict) -> list[Check]:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is None and high is None:
        return []
    if not all(bound is None or _is_number(bound) for bound in (low, high)):
        raise _Unsupported()
    low = low if low is not None else float("-inf")
    high = high if high is not None else float("inf")

    def check(value: object) -> bool:
        if _is_number(value):
            return low <= value <= high
        # Bounds only apply to numbers; a number of another kind (Decimal) is left to jsonschema.
        return isinstance(value, bool) or not isinstance(value, Number)

    return [check]


def _object_checks(schema: dict) -> list[Check]:
    properties = {name: _compile(sub) for name, sub in (schema.get("properties") or {}).items()}
    required = tuple(schema.get("required") or ())
    extra = schema.get("additionalProperties", True)
    extra_check = None if extra is True else _compile(extra) if extra is not False else False
    at_least = schema.get("minProperties") or 0
    if not properties and not required and extra_check is None and not at_least:
        return []

    def check(value: object) -> bool:
        if not isinstance(value, dict):
            return True
        if len(value) < at_least or not all(name in value for name in required):
            return False
        for name, member in value.items():
            known = properties.get(name)
            if known is not None:
                if not known(member):
                    return False
            elif extra_check is False or (extra_check is not None and not extra_check(member)):
                return False
        return True

    return [check]
