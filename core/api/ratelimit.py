"""Fixed-window rate limits in the Django cache (Redis in production), DESIGN section 5.

A bucket (a group, whose bucket, and a rate such as "600/m") counts the requests of one window,
aligned to the epoch, in one cache counter that expires with the window. All the buckets of a
request are counted together by `counters_add` (one round trip on Redis). Correctness never
depends on the cache: when it is down, requests pass and a warning is logged (at most once a minute).
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.exceptions import ImproperlyConfigured
from django_redis import get_redis_connection
from django_redis.cache import RedisCache

from core.api.errors import RateLimited
from core.cachedown import cache_down

_RATE = re.compile(r"(\d+)/(\d*)([smhd])")
_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
EXPIRY_MARGIN = 5  # seconds a window's counter outlives the window


def rate_parse(rate: str) -> tuple[int, int]:
    """("600/m") -> (600, 60): the requests allowed and the window in seconds ("10/5m": 300 s)."""
    match = _RATE.fullmatch(rate)
    if match is None:
        raise ImproperlyConfigured(f"Not a rate: {rate!r} (write it like 600/m).")
    count, multiple, unit = match.groups()
    return int(count), int(multiple or 1) * _SECONDS[unit]


@dataclass(frozen=True)
class Bucket:
    group: str  # "tenant", "principal", "login-ip", ...
    value: str  # whose bucket
    rate: str  # "600/m"

    def window(self, now: int) -> tuple[str, int, int]:
        """(the counter's name, the limit, the window's end in epoch seconds) at `now`."""
        limit, period = rate_parse(self.rate)
        start = now - now % period
        identity = f"{self.group}|{limit}/{period}|{self.value}|{start}"
        return "rl:" + hashlib.sha256(identity.encode()).hexdigest(), limit, start + period


@dataclass(frozen=True)
class RateState:
    limit: int
    remaining: int
    reset: int  # UTC epoch seconds

    def apply(self, response) -> None:
        response["X-RateLimit-Limit"] = str(self.limit)
        response["X-RateLimit-Remaining"] = str(self.remaining)
        response["X-RateLimit-Reset"] = str(self.reset)


def rate_limit_hit(buckets: list[Bucket], *, tally: Tally | None = None) -> RateState | None:
    """Count this request once in every bucket; raise RateLimited if any bucket is exhausted.
    `tally` (usage counters and notes) travels in the same round trip. Returns the state of the
    bucket with the least left, or None when the cache is unavailable."""
    now = int(time.time())
    windows = [bucket.window(now) for bucket in buckets]
    counters = {name: end - now + EXPIRY_MARGIN for name, _limit, end in windows}
    try:
        counts = counters_add(
            counters | (tally.counters if tally else {}), notes=tally.notes if tally else None
        )
    except Exception as exc:  # the cache is down: let the request through, say so in the log
        cache_down("Rate limiter cache", "failing open", exc)
        return None
    states = [
        (RateState(limit, max(0, limit - count), max(end, now + 1)), count > limit)
        for (_name, limit, end), count in zip(windows, counts[: len(windows)], strict=True)
    ]
    state, exceeded = min(states, key=lambda s: (not s[1], s[0].remaining))
    if exceeded:
        error = RateLimited(wait=state.reset - now, details={"source": "hub", "limit": state.limit})
        error.rate_state = state
        raise error
    return state


def rate_limit_peek(bucket: Bucket) -> int:
    """Requests counted in the bucket's current window (0 when the cache cannot say)."""
    name, _limit, _end = bucket.window(int(time.time()))
    try:
        return int(caches[DEFAULT_CACHE_ALIAS].get(name) or 0)
    except Exception:
        return 0


@dataclass(frozen=True)
class Note:
    value: object
    ttl: int
    only_if_absent: bool = False  # keep the first value written (SET NX / cache.add)


@dataclass(frozen=True)
class Tally:
    """What one request adds to the cache besides its rate limits: counters (name -> time to live)
    that each go up by one, and notes (name -> Note) written as values."""

    counters: dict[str, int]
    notes: dict[str, Note]


def counters_add(counters: dict[str, int], *, notes: dict[str, Note] | None = None) -> list[int]:
    """Add one to each named counter of the default cache, creating a missing one with its time to
    live (seconds), write the notes, and return the new counts in order. On Redis one pipeline, one
    round trip: an INCR per counter (django-redis stores integers as plain numbers and encodes other
    values with its client's `encode`, so the cache API reads both back), then, only for the
    counters that INCR has just created (a count of 1: once per window), their expiry in a second
    one. On any other cache `incr`/`add`/`set`. Raises when the cache is unavailable."""
    cache = caches[DEFAULT_CACHE_ALIAS]
    notes = notes or {}
    if not isinstance(cache, RedisCache):
        counts = [_counter_add(cache, name, ttl) for name, ttl in counters.items()]
        for name, note in notes.items():
            (cache.add if note.only_if_absent else cache.set)(name, note.value, note.ttl)
        return counts
    redis = get_redis_connection(DEFAULT_CACHE_ALIAS)
    keys = {cache.make_key(name): ttl for name, ttl in counters.items()}
    pipe = redis.pipeline(transaction=False)
    for key in keys:
        pipe.incr(key)
    for name, note in notes.items():
        pipe.set(cache.make_key(name), cache.client.encode(note.value), ex=note.ttl, nx=note.only_if_absent)
    counts = pipe.execute()[: len(keys)]
    created = [(key, ttl) for (key, ttl), count in zip(keys.items(), counts, strict=True) if count == 1]
    if created:
        pipe = redis.pipeline(transaction=False)
        for key, ttl in created:
            pipe.expire(key, ttl)
        pipe.execute()
    return counts


def _counter_add(cache, name: str, ttl: int) -> int:
    try:
        return cache.incr(name)
    except ValueError:  # no counter yet (or it has just expired)
        if cache.add(name, 1, ttl):
            return 1
        return cache.incr(name)


def principal_rate() -> str:
    return settings.RATE_LIMIT_PER_KEY


def tenant_rate() -> str:
    return settings.RATE_LIMIT_PER_TENANT
