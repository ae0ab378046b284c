"""limit/offset pagination of DESIGN section 4: `pagination: {total, limit, offset, hasMore}`."""

from __future__ import annotations

from dataclasses import dataclass

from core.api.errors import InvalidParameter

MAX_LIMIT = 100
DEFAULT_LIMIT = 50


@dataclass(frozen=True)
class PageRequest:
    limit: int
    offset: int


def page_request(request) -> PageRequest:
    return PageRequest(
        limit=_int_param(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT),
        offset=_int_param(request, "offset", 0, 0, 10**9),
    )


def _int_param(request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise InvalidParameter(
            f"Invalid {name} parameter.",
            details={name: f"{name} must be an integer from {low} to {high}."},
        )
    return value


def paginate(queryset, page: PageRequest) -> tuple[list, dict]:
    """One COUNT and one page SELECT; items are whatever the queryset yields."""
    total = queryset.count()
    items = list(queryset[page.offset : page.offset + page.limit]) if page.offset < total else []
    return items, page_info(page, total, len(items))


def page_info(page: PageRequest, total: int, returned: int) -> dict:
    """The `pagination` object of a page of `returned` items out of `total`."""
    return {
        "total": total,
        "limit": page.limit,
        "offset": page.offset,
        "hasMore": page.offset + returned < total,
    }
