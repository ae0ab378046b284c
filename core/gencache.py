"""Read-through caches of rarely written rows, shared by every process through the Django cache
(Redis in production), kept correct by a generation counter (`GenerationCache`).

What keeps an entry correct:

- Every entry carries the generation it was read under; the generation counter of its cache is
  shared by all processes and read in the same round trip as the entry (`get_many`), so an entry of
  an older generation is never used.
- Any write to a row that an entry may hold bumps the generation (the owner connects its models'
  signals and bulk writes to `invalidate`). It is bumped at once and again after the transaction
  commits: the second bump drops an entry that another process may have read from the database
  before the commit and stored under the first bump's generation.
- The generation is read *before* the database, so an entry is never newer than its generation.
- If the cache is down, lookups go to the database (the cache is an accelerator, never a control).
- If the cache lives in each process's memory (the embedded default, without Redis), lookups of
  rows go to the database too: a write made by another process (a worker's job, a command) could
  not move this process's generation on. A cache of what is not a row (`rows=False`: keys fetched
  from an issuer) stays on there.

A cache may be scoped (a tenant, say): a lookup then checks its scope's generation beside the
cache's own, a write that knows its scope moves only that one on, and a write that does not (a bulk
update) moves the cache's own, which every entry checks. A cache whose entries also hold rows of
another cache's model (an API key with its tenant) names that cache in `depends_on`: its entries
check that generation too, in the same round trip.

Only found rows are cached; a miss costs a database query. Entries live at most `ttl` seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.db import models, transaction

from core.cachedown import cache_down


def cache_is_process_local() -> bool:
    """True when the default cache lives in each process's memory (the embedded default)."""
    return settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"


class GenerationCache:
    def __init__(
        self, name: str, *, ttl: int = 300, depends_on: tuple[GenerationCache, ...] = (), rows: bool = True
    ) -> None:
        self.name = name
        self.rows = rows
        self.generation_key = f"{name}:gen"
        self.ttl = ttl
        self.counters = [self.generation_key] + [other.generation_key for other in depends_on]

    def lookup(self, key: str, load: Callable[[], object], *, scope: str | None = None):
        """The row cached under `key` when its generations are current, else `load()` (the
        database), cached for the next request when found."""
        if self.rows and cache_is_process_local():
            return load()
        counters = self.counters + ([self._scoped(scope)] if scope else [])
        entry_key = f"{self.name}:{key}"
        try:
            found = cache.get_many([*counters, entry_key])
        except Exception as exc:  # the cache is down: the database answers
            cache_down("Row cache", "using the database", exc)
            return load()
        generation = tuple(found.get(name) or self._start(name) for name in counters)
        entry = found.get(entry_key)
        if entry is not None and entry[0] == generation:
            return entry[1]
        row = load()
        if row is not None and None not in generation:
            _guarded(cache.set, entry_key, (generation, row), self.ttl)
        return row

    def invalidate(self, scope: str | None = None) -> None:
        """Every entry (of `scope`) becomes stale, now and again when the current transaction
        commits."""
        name = self._scoped(scope) if scope else self.generation_key
        _bump(name)
        transaction.on_commit(lambda: _bump(name))

    def _scoped(self, scope: str) -> str:
        return f"{self.generation_key}:{scope}"

    @staticmethod
    def _start(name: str):
        """A missing counter (a flushed or evicting cache) restarts at a value no earlier entry
        holds."""
        _guarded(cache.add, name, time.time_ns(), None)
        try:
            return cache.get(name)
        except Exception as exc:
            cache_down("Row cache", "using the database", exc)
            return None


def _bump(name: str) -> None:
    try:
        cache.incr(name)
    except ValueError:  # no counter yet: nothing can be cached under one either
        _guarded(cache.add, name, time.time_ns(), None)
    except Exception as exc:
        cache_down("Row cache", "using the database", exc)


def _guarded(function, *args) -> None:
    try:
        function(*args)
    except Exception as exc:
        cache_down("Row cache", "using the database", exc)


class GenerationQuerySet(models.QuerySet):
    """A queryset whose bulk writes make the entries of `generation_caches` stale at once (every
    scope: a bulk write does not say which rows it touched); an `update()` of `quiet_fields` alone
    (counters nothing cached depends on) keeps them. The owner connects `save()` and deletes of
    single rows through signals."""

    generation_caches: tuple[GenerationCache, ...] = ()
    quiet_fields: frozenset[str] = frozenset()

    def update(self, **kwargs):
        updated = super().update(**kwargs)
        if updated and not set(kwargs) <= self.quiet_fields:
            self._invalidate()
        return updated

    def delete(self):
        result = super().delete()
        self._invalidate()
        return result

    def bulk_create(self, *args, **kwargs):
        created = super().bulk_create(*args, **kwargs)
        self._invalidate()
        return created

    def bulk_update(self, *args, **kwargs):
        updated = super().bulk_update(*args, **kwargs)
        self._invalidate()
        return updated

    def _invalidate(self) -> None:
        for generations in self.generation_caches:
            generations.invalidate()
