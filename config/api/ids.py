"""Path ids: the prefixed form the API returns (`cred-<uuid>`, `conn_<hex>`) or the bare UUID
(DESIGN section 13.7). One parser; each caller words its own 400 for its parameter."""

from __future__ import annotations

import uuid


def prefixed_uuid(raw: str, prefix: str = "") -> uuid.UUID | None:
    """The UUID in `raw` (with or without `prefix`), or None when it is not one."""
    text = raw[len(prefix) :] if prefix and raw.startswith(prefix) else raw
    try:
        return uuid.UUID(text)
    except (ValueError, AttributeError, TypeError):
        return None
