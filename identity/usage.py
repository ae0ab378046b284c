"""An API key's usage: its counts in the cache (core.usage), read for its pages, and moved onto its
row (`api_key_usage_flush`) when the key is read and every few minutes in the `usageFlush` job."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.api.ratelimit import Bucket, principal_rate
from core.principals import Principal
from core.usage import counter_name, counters_read, day_label, hour_label, warn_unavailable
from identity.models import ApiKey


def api_key_window_counts(key_id) -> dict[str, int]:
    now = timezone.now()
    hour, day = (
        counter_name("ak", key_id, "h", hour_label(now)),
        counter_name("ak", key_id, "d", day_label(now)),
    )
    found = counters_read([hour, day])
    return {"hourCount": int(found.get(hour) or 0), "dayCount": int(found.get(day) or 0)}


def api_key_usage_flush(key) -> None:
    """Move the cached counts onto the key's row. The row is locked first, so concurrent flushes of
    one key take turns and each count is moved once; calls counted meanwhile stay in the cache."""

    calls, fail = counter_name("ak", key.id, "calls"), counter_name("ak", key.id, "fail")
    last, first = counter_name("ak", key.id, "last"), counter_name("ak", key.id, "first")
    with transaction.atomic():
        row = ApiKey.objects.select_for_update().only("last_used_at", "first_used_at").get(id=key.id)
        found = counters_read([calls, fail, last, first])
        taken = {name: int(found.get(name) or 0) for name in (calls, fail)}
        try:
            for name, count in taken.items():
                if count:
                    cache.decr(name, count)
        except Exception as exc:
            warn_unavailable(exc)
            return
        changes = _changes(row, taken[calls], taken[fail], found.get(last), found.get(first))
        if changes:
            ApiKey.objects.filter(id=key.id).update(**changes)
    if changes:
        key.refresh_from_db()


def _changes(row, calls: int, fail: int, last: str | None, first: str | None) -> dict:
    """A failure is counted after its call, so a flush between the two moves the call as a success
    and the next one moves it back (success -1, failure +1): the totals agree once both are in."""
    changes: dict = {}
    if calls or fail:
        changes |= {
            "usage_count": F("usage_count") + calls,
            "success_count": F("success_count") + calls - fail,
            "failure_count": F("failure_count") + fail,
        }
    if last:
        moment, _, ip = last.partition("|")
        when = _parse(moment)
        if row.last_used_at is None or when > row.last_used_at:
            changes |= {"last_used_at": when, "last_used_ip": ip}
    if first and row.first_used_at is None:
        changes["first_used_at"] = _parse(first)
    return changes


def _parse(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def api_keys_current_use(key_ids: list) -> dict[str, tuple[int, int]]:
    """str(key id) -> (its calls in the rate limiter's current minute, its calls this hour), read in
    one cache round trip (0 for what the cache cannot say)."""
    now, epoch = timezone.now(), int(time.time())
    names = {}
    for key_id in map(str, key_ids):
        rate_key = Principal(kind="api_key", id=key_id, name="").rate_key
        minute, _limit, _end = Bucket("principal", rate_key, principal_rate()).window(epoch)
        names[key_id] = (minute, counter_name("ak", key_id, "h", hour_label(now)))
    found = counters_read([name for pair in names.values() for name in pair]) if names else {}
    return {key_id: (int(found.get(m) or 0), int(found.get(h) or 0)) for key_id, (m, h) in names.items()}
