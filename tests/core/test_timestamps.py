"""Timestamps in every response: ISO 8601 UTC with milliseconds and Z (DESIGN section 4)."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from core.api.timestamps import iso_ms


def test_it_writes_utc_with_milliseconds_and_z():
    assert iso_ms(datetime(2026, 11, 21, 9, 30, 0, 123456, tzinfo=UTC)) == "2026-11-21T09:30:00.123Z"


def test_it_truncates_to_the_millisecond_and_pads_zeros():
    assert iso_ms(datetime(2026, 1, 2, 3, 4, 5, 999999, tzinfo=UTC)) == "2026-01-02T03:04:05.999Z"
    assert iso_ms(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) == "2026-01-02T03:04:05.000Z"


def test_it_converts_other_zones_and_reads_naive_values_as_utc():
    paris = datetime(2026, 7, 1, 12, 0, 0, 5000, tzinfo=ZoneInfo("Europe/Paris"))
    assert iso_ms(paris) == "2026-07-01T10:00:00.005Z"
    assert iso_ms(datetime(2026, 7, 1, 12, 0, 0)) == "2026-07-01T12:00:00.000Z"
    assert iso_ms(datetime(2026, 7, 1, 12, 0, 0, tzinfo=ZoneInfo("UTC"))) == "2026-07-01T12:00:00.000Z"


def test_nothing_stays_nothing():
    assert iso_ms(None) is None
