"""Fixed-window rate limits in the Django cache (Redis in production), DESIGN section 5.

Counting follows django-ratelimit's `get_usage` (same keys, windows and expiry). On Redis all
buckets of a request are counted in one script call (SET NX + INCR per bucket) instead of two round
trips per bucket; on other caches `get_usage` itself counts. Correctness never depends on
the cache: when it is down, requests pass and a warning is logged (at most once a minute).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django_ratelimit.core import EXPIRATION_FUDGE, _get_window, _make_cache_key, _split_rate, get_usage

from config.api.errors import RateLimited
from config.redis_own import OwnConnection, cache_key, redis_client

logger = logging.getLogger(__name__)
_last_warning = 0.0


@dataclass(frozen=True)
class Bucket:
    group: str  # "tenant", "principal", "login-ip", ...
    value: str  # whose bucket
    rate: str  # "600/m"


@dataclass(frozen=True)
class RateState:
    limit: int
    remaining: int
    reset: int  # UTC epoch seconds

    def apply(self, response) -> None:
        response["X-RateLimit-Limit"] = str(self.limit)
        response["X-RateLimit-Remaining"] = str(self.remaining)
        response["X-RateLimit-Reset"] = str(self.reset)


class Stale(Exception):
    """The guard's cache value was not the expected one: nothing was counted."""


def rate_limit_hit(
    request, buckets: list[Bucket], *, guard: tuple[str, object] | None = None
) -> RateState | None:
    """Count this request once in every bucket; raise RateLimited if any bucket is exhausted.

    With `guard` (a cache key and a value) the request is counted only if the key holds that value,
    in the same call on Redis; otherwise Stale is raised and nothing is counted. Returns the state of
    the bucket with the least left, or None when the cache is unavailable (Stale if guarded).
    """
    states: list[tuple[RateState, bool, int]] = []
    current = caches[DEFAULT_CACHE_ALIAS]  # `cache` is a per-thread proxy: resolved once
    client = redis_client(current)
    if client is not None:
        usages = _usages_redis(current, client, buckets, guard)
    else:
        if guard is not None and not _holds(*guard):
            raise Stale()
        usages = [_usage(request, b) for b in buckets]
    for usage in usages:
        if usage is None:
            if guard is not None:
                raise Stale()  # the guard could not be confirmed
            return None
        remaining = max(0, usage["limit"] - usage["count"])
        reset = int(time.time()) + max(1, usage["time_left"])
        states.append(
            (RateState(usage["limit"], remaining, reset), usage["should_limit"], usage["time_left"])
        )
    if not states:
        return None
    tightest = min(states, key=lambda s: (not s[1], s[0].remaining))
    state, exceeded, time_left = tightest
    if exceeded:
        error = RateLimited(wait=max(1, time_left), details={"source": "hub", "limit": state.limit})
        error.rate_state = state
        raise error
    return state


def _holds(key: str, value) -> bool:
    try:
        return cache.get(key) == value
    except Exception as exc:
        _warn_cache_down(exc)
        return False


def _usage(request, bucket: Bucket) -> dict | None:
    try:
        usage = get_usage(
            request, group=bucket.group, key=lambda _g, _r: bucket.value, rate=bucket.rate, increment=True
        )
    except Exception as exc:  # the cache is down: let the request through, say so in the log
        _warn_cache_down(exc)
        return None
    if usage is None or (usage["limit"] == 0 and usage["time_left"] == -1):
        _warn_cache_down(None)
        return None
    return usage


# get_usage(increment=True) per bucket (SET NX with the window's expiry, then INCR), every bucket of
# the request in one script call: one round trip, and less client work than a 4-command pipeline.
# KEYS: the buckets, then the guard's key if any; ARGV: the bucket count, their expiries, the guard's
# value. A guard that does not hold counts nothing and answers false. Sent as EVAL, the text and not
# its digest: Redis keeps the compiled script by its digest, and nothing can answer "no such
# script" after a restart.
_COUNT_SCRIPT = """
local n = tonumber(ARGV[1])
if #KEYS > n and redis.call('GET', KEYS[n + 1]) ~= ARGV[n + 2] then
  return false
end
local counts = {}
for i = 1, n do
  redis.call('SET', KEYS[i], 0, 'EX', ARGV[i + 1], 'NX')
  counts[i] = redis.call('INCR', KEYS[i])
end
return counts
"""
# Straight to this thread's own connection (config.redis_own), not through the client's pool.
_counting = OwnConnection()


@lru_cache(maxsize=64)
def _limit_and_period(rate: str) -> tuple[int, int]:
    return _split_rate(rate)


@lru_cache(maxsize=4096)
def _bucket_name(group: str, window: int, rate: str, value: str) -> str:
    """django-ratelimit's name for a bucket's window: the same for every request of the window."""
    return _make_cache_key(group, window, rate, value, None)


def _usages_redis(
    current, client, buckets: list[Bucket], guard: tuple[str, object] | None
) -> list[dict | None]:
    """get_usage(increment=True) for every bucket in one round trip (Stale if the guard fails), on
    the cache `current` and its Redis `client`."""
    plans, keys, args = [], [], [len(buckets)]
    try:
        for bucket in buckets:
            limit, period = _limit_and_period(bucket.rate)
            window = _get_window(bucket.value, period)
            keys.append(cache_key(current, _bucket_name(bucket.group, window, bucket.rate, bucket.value)))
            args.append(period + EXPIRATION_FUDGE)
            plans.append((limit, window))
        if guard is not None:
            keys.append(cache_key(current, guard[0]))
            args.append(str(guard[1]))  # django-redis stores integers as their decimal text
        counts = _counting.call(client, "EVAL", _COUNT_SCRIPT, len(keys), *keys, *args)
    except Exception as exc:  # the cache is down: let the request through, say so in the log
        _warn_cache_down(exc)
        return [None]
    if counts is None:
        raise Stale()
    now = int(time.time())
    return [
        {"count": count, "limit": limit, "should_limit": count > limit, "time_left": window - now}
        for (limit, window), count in zip(plans, counts, strict=True)
    ]


def _warn_cache_down(exc: Exception | None) -> None:
    global _last_warning
    now = time.monotonic()
    if now - _last_warning > 60:
        _last_warning = now
        logger.warning(
            "Rate limiter cache unavailable; failing open (%s)", type(exc).__name__ if exc else "no count"
        )


def principal_rate() -> str:
    return settings.RATE_LIMIT_PER_KEY


def tenant_rate() -> str:
    return settings.RATE_LIMIT_PER_TENANT
