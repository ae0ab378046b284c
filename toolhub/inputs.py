"""What an execute call sends: the body envelope, the tool input checked against its schema, the
idempotency fingerprint and the redacted copy kept in records. Pure functions, no database."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from core.api.fields import holds_nul
from toolhub.errors import InvalidInput
from toolhub.registry import Tool

MAX_ERRORS = 50
IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")  # printable ASCII, no spaces

# The body around the tool's input (api-spec part 6); checked with the same engine as tool inputs so
# every error reads the same way.
_ENVELOPE_SCHEMA = {
    "type": "object",
    "properties": {
        "input": {"type": "object"},
        "connection_id": {"type": "string", "minLength": 1, "maxLength": 64},
        "idempotency_key": {"type": "string", "pattern": IDEMPOTENCY_KEY.pattern},
        "dry_run": {"type": "boolean"},
    },
    "required": ["input"],
    "additionalProperties": False,
}
_ENVELOPE = Draft202012Validator(_ENVELOPE_SCHEMA)


@dataclass(frozen=True)
class ExecuteRequest:
    input: dict
    connection_id: str | None
    idempotency_key: str | None
    dry_run: bool


def execute_request_parse(body: object, *, header_key: str | None) -> ExecuteRequest:
    errors = schema_errors(_ENVELOPE, body, prefix="")
    if holds_nul(body):  # no database text keeps one: refused here, not when the call is recorded
        where = "/input" if isinstance(body, dict) and holds_nul(body.get("input")) else "/"
        errors.append(_error(where, "pattern", "The body must not contain NUL characters (\\u0000)."))
    if header_key is not None and not IDEMPOTENCY_KEY.match(header_key):
        errors.append(
            _error(
                "/idempotency_key",
                "pattern",
                "The Idempotency-Key header must be 1-255 printable characters.",
            )
        )
    if errors:
        raise InvalidInput(errors)
    field_key = body.get("idempotency_key")
    if header_key is not None and field_key is not None and header_key != field_key:
        raise InvalidInput(
            [_error("/idempotency_key", "const", "The Idempotency-Key header and idempotency_key differ.")]
        )
    return ExecuteRequest(
        input=body["input"],
        connection_id=body.get("connection_id"),
        idempotency_key=field_key if field_key is not None else header_key,
        dry_run=body.get("dry_run", False),
    )


def input_errors(tool: Tool, value: dict) -> list[dict]:
    return schema_errors(tool.input_validator, value, prefix="/input")


def output_errors(tool: Tool, value: object) -> list[dict]:
    return schema_errors(tool.output_validator, value, prefix="")


def schema_errors(validator: Draft202012Validator, value: object, *, prefix: str) -> list[dict]:
    """The schema's errors for `value`, worded by jsonschema, as JSON Pointers under `prefix`."""
    errors = sorted(
        validator.iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.validator)
    )
    return [_describe(e, prefix) for e in errors[:MAX_ERRORS]]


def _describe(error: ValidationError, prefix: str) -> dict:
    path = list(error.absolute_path)
    if error.validator == "required":
        # Point at the missing member itself, not at the object that lacks it.
        missing = next((p for p in error.validator_value if error.message.startswith(repr(p))), None)
        if missing is not None:
            path.append(missing)
    return _error(prefix + "".join(f"/{_pointer(p)}" for p in path), str(error.validator), error.message)


def _pointer(part) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def _error(path: str, keyword: str, message: str) -> dict:
    return {"path": path or "/", "keyword": keyword, "message": message}


def fingerprint(*, tool_key: str, input: dict, connection_id: str | None) -> str:
    """SHA-256 of the canonical JSON of what was asked: the same request always has the same one."""
    canonical = json.dumps(
        {"tool_key": tool_key, "input": input, "connection_id": connection_id},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def derived_idempotency_key(*, principal_key: str, tool_key: str, input: dict) -> str:
    """The key of a gated call that came without one: the same caller making the same call (tool
    and canonical arguments) again gets the same key, and so finds its approval and its answer."""
    canonical = json.dumps(
        [principal_key, tool_key, input], sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return "derived-" + hashlib.sha256(canonical.encode()).hexdigest()


_SECRETISH = re.compile(r"pass(word)?|secret|token|api[_-]?key|credential|authorization|private", re.I)
MAX_RECORDED_STRING = 500


def redacted(value, *, depth: int = 0):
    """The input as kept in records and shown to approvers: secret-named members masked, long
    strings cut, deep nesting elided."""
    if depth > 8:
        return "[nested]"
    if isinstance(value, dict):
        return {
            str(k): "[redacted]" if _SECRETISH.search(str(k)) else redacted(v, depth=depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redacted(v, depth=depth + 1) for v in value[:100]]
    if isinstance(value, str) and len(value) > MAX_RECORDED_STRING:
        return value[:MAX_RECORDED_STRING] + "…"
    return value
