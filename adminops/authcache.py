"""A cache of API-key lookups shared by every process (the Django cache: Redis in production).

Why: the lookup (one SELECT with the tenant joined) is the largest cost of a small authenticated
request. What keeps it correct — a revoked, disabled, expired or rotated-away key, or a suspended
tenant, stops authenticating at once, in every process:

- Every entry carries the *generation* it was read under; one generation counter is shared by all
  processes and read in the same round trip as the entry (`get_many`), so an entry of an older
  generation is never used.
- Any write to an API key or a tenant bumps the generation: `post_save`/`post_delete` signals and
  the querysets' `update()`/`delete()` (so bulk updates and cascades count too). It is bumped at
  once and again after the transaction commits: the second bump drops an entry that another process
  may have read from the database before the commit and stored under the first bump's generation.
- The generation is read *before* the database, so an entry is never newer than its generation.
- Time-dependent checks (expiry, a previous key's grace period) run on every request, on the cached
  row, never from the cache's own TTL.
- If the cache is down, lookups go to the database (the cache is an accelerator, never a control).

Only positive lookups are cached; an unknown key costs a database query. Entries hold the key's row
(hashes, never the raw key) and live at most ENTRY_TTL seconds.
"""

from __future__ import annotations

import logging
import time

from django.core.cache import cache
from django.db import transaction

logger = logging.getLogger(__name__)
GENERATION_KEY = "apikey-auth:gen"
ENTRY_TTL = 300
_last_warning = 0.0


def _entry_key(digest: str) -> str:
    return f"apikey-auth:{digest}"


def cached_lookup(digest: str, load):
    """The ApiKey for `digest` (with its tenant), from the cache when its generation is current,
    else from `load(digest)` (the database), cached for the next request."""
    try:
        found = cache.get_many([GENERATION_KEY, _entry_key(digest)])
    except Exception as exc:  # the cache is down: the database answers
        _warn(exc)
        return load(digest)
    generation = found.get(GENERATION_KEY)
    if generation is None:
        generation = _start_generation()
    entry = found.get(_entry_key(digest))
    if entry is not None and entry[0] == generation:
        return entry[1]
    key = load(digest)
    if key is not None and generation is not None:
        _guarded(cache.set, _entry_key(digest), (generation, key), ENTRY_TTL)
    return key


def _start_generation():
    """A missing counter (a flushed or evicting cache) restarts at a value no earlier entry holds."""
    _guarded(cache.add, GENERATION_KEY, time.time_ns(), None)
    try:
        return cache.get(GENERATION_KEY)
    except Exception as exc:
        _warn(exc)
        return None


def invalidate_all() -> None:
    """Every cached lookup becomes stale, now and again when the current transaction commits."""
    _bump()
    transaction.on_commit(_bump)


def _bump() -> None:
    try:
        cache.incr(GENERATION_KEY)
    except ValueError:  # no counter yet: nothing can be cached under one either
        _guarded(cache.add, GENERATION_KEY, time.time_ns(), None)
    except Exception as exc:
        _warn(exc)


def _guarded(function, *args) -> None:
    try:
        function(*args)
    except Exception as exc:
        _warn(exc)


def _warn(exc: Exception) -> None:
    global _last_warning
    if time.monotonic() - _last_warning > 60:
        _last_warning = time.monotonic()
        logger.warning("API-key lookup cache unavailable (%s); using the database", type(exc).__name__)


# Usage statistics flushed onto a key's row (adminops.usage) do not change who may authenticate.
_USAGE_FIELDS = frozenset(
    {"usage_count", "success_count", "failure_count", "last_used_at", "last_used_ip", "first_used_at"}
)


def changes_matter(model, fields) -> bool:
    return model.__name__ != "ApiKey" or not set(fields) <= _USAGE_FIELDS


def on_save(sender, update_fields=None, **kwargs) -> None:
    """post_save receiver (connected in AdminopsConfig.ready) for ApiKey and Tenant."""
    if update_fields is None or changes_matter(sender, update_fields):
        invalidate_all()


def on_delete(sender, **kwargs) -> None:
    invalidate_all()
