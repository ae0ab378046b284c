"""Thin views of the tool interface (the tool envelope family: /tools, /connections, /approvals)."""

from __future__ import annotations

from core.api.errors import InvalidParameter


def query_choice(request, name: str, allowed: list[str]) -> str | None:
    """A query parameter that must be one of `allowed` (400 INVALID_PARAMETER; an empty one too), or
    None when absent."""
    value = request.query_params.get(name)
    if value is not None and value not in allowed:
        raise InvalidParameter(f"Invalid {name} parameter.", details={name: f"One of: {', '.join(allowed)}."})
    return value
