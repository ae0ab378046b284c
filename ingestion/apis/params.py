"""Query parameters of the /v2 ingestion endpoints: a bad value is a /v2 query error (422 with
`loc: ["query", name]`)."""

from __future__ import annotations

import uuid

from core.api.errors import FieldError, RequestInvalid
from core.api.ids import prefixed_uuid


def int_query(request, name: str, *, low: int, high: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise query_error(name, "value is not a valid integer", "type_error.integer", shape=True) from None
    if value < low:
        raise query_error(
            name, f"ensure this value is greater than or equal to {low}", "value_error.number.not_ge"
        )
    if value > high:
        raise query_error(
            name, f"ensure this value is less than or equal to {high}", "value_error.number.not_le"
        )
    return value


def id_query(request, name: str, prefix: str) -> uuid.UUID | None:
    """An id the API returned (`<prefix><uuid>`), or the bare UUID; absent: None."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    value = prefixed_uuid(raw.strip(), prefix)
    if value is None:
        raise query_error(name, f"value is not a valid id ({prefix}<uuid>)", "type_error.uuid", shape=True)
    return value


def text_query(request, name: str, *, max_length: int = 255) -> str | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if len(raw) > max_length:
        message = f"ensure this value has at most {max_length} characters"
        raise query_error(name, message, "value_error.any_str.max_length")
    return raw


def query_error(name: str, message: str, v2_type: str, *, shape: bool = False) -> RequestInvalid:
    return RequestInvalid([FieldError((name,), message, v2_type, message, shape=shape)], where="query")
