"""Path ids: the prefixed form the API returns (`cred-<uuid>`, `conn_<hex>`) or the bare UUID
(DESIGN section 13.7). One parser; each caller words its own 400 for its parameter."""

from __future__ import annotations

import uuid

from core.api.errors import InvalidParameter


def prefixed_uuid(raw: str, prefix: str = "") -> uuid.UUID | None:
    """The UUID in `raw` (with or without `prefix`), or None when it is not one."""
    text = raw[len(prefix) :] if prefix and raw.startswith(prefix) else raw
    try:
        return uuid.UUID(text)
    except (ValueError, AttributeError, TypeError):
        return None


def path_id(raw: str, *, name: str, prefix: str = "") -> uuid.UUID:
    """A path id in the prefixed form the API returns (`client-<uuid>`) or as a bare UUID."""
    parsed = prefixed_uuid(raw, prefix)
    if parsed is None:
        shown = f"{prefix}<uuid> or a UUID" if prefix else "a UUID"
        raise InvalidParameter(f"Invalid {name}.", details={name: f"{name} must be {shown}."})
    return parsed
