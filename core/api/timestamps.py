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


def iso_ms_text(value: object) -> str | None:
    """An ISO 8601 date-time from elsewhere (a vendor's record) in the form of `iso_ms`; one
    without an offset is read as UTC. Anything that does not read as a date-time is None."""
    if not isinstance(value, str):
        return None
    try:
        return iso_ms(datetime.fromisoformat(value))
    except ValueError:
        return None


def utc_timestamp() -> str:
    return iso_ms(timezone.now())
