from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone


def iso_ms(value: datetime | None) -> str | None:
    """ISO 8601 UTC with milliseconds and Z: 2026-11-21T09:30:00.123Z."""
    if value is None:
        return None
    if value.tzinfo is not UTC:  # what the database gives is already UTC: no conversion to make
        value = value.replace(tzinfo=UTC) if timezone.is_naive(value) else value.astimezone(UTC)
    # isoformat truncates to milliseconds as the format says; a few times faster than strftime (a
    # list page formats hundreds of these).
    return value.isoformat(timespec="milliseconds")[:-6] + "Z"


def utc_timestamp() -> str:
    return iso_ms(timezone.now())
