"""Usage counters without a database write per request.

Once each authenticated response has left, a middleware adds the call to counters in the cache, in
one script call that it does not wait for on Redis (`_Unanswered`; plain cache calls on the
in-process default): per API key the calls, the 2xx/3xx and 4xx/5xx split, first and last use with
the address, per-hour and per-day windows, and per tenant the calls of the month.
`api_key_usage_flush` moves an API key's counters onto its row; it runs when a key is read and every
few minutes in the `usageFlush` job. The per-minute count is the rate limiter's own bucket. When the
cache is down, counting is skipped (logged): it is a statistic, not a control.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from functools import partial

from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.db.models import F
from django.utils import timezone

from config.redis_own import OwnConnection, cache_key, redis_client

logger = logging.getLogger(__name__)
_HOUR, _DAY = 3600, 86400
_MONTH_TTL = 70 * _DAY
_last_warning = 0.0


def _name(*parts) -> str:
    return "usage:" + ":".join(map(str, parts))


def _hour(moment: datetime) -> str:
    return moment.strftime("%Y%m%d%H")


def _day(moment: datetime) -> str:
    return moment.strftime("%Y%m%d")


def month_label(moment: datetime) -> str:
    return moment.strftime("%Y%m")


class _CacheStore:
    """Django's cache API: used when the cache is not Redis (the in-process default)."""

    def note(self, counters: dict[str, int], values: dict[str, str], first: dict[str, str]) -> None:
        for name, ttl in counters.items():
            if not cache.add(name, 1, ttl):
                try:
                    cache.incr(name)
                except ValueError:
                    cache.set(name, 1, ttl)
        for name, value in values.items():
            cache.set(name, value, _MONTH_TTL)
        for name, value in first.items():
            cache.add(name, value, _MONTH_TTL)

    def take(self, names: list[str]) -> list[int]:
        values = cache.get_many(names)
        cache.delete_many(names)
        return [int(values.get(n) or 0) for n in names]

    def read(self, names: list[str]) -> list[str | None]:
        values = cache.get_many(names)
        return [None if values.get(n) is None else str(values[n]) for n in names]


# One call per request instead of a 13-command pipeline: the same INCR + EXPIRE per counter, SET EX
# per value and SET EX NX per first-use value, run by Redis (a third of the client-side cost). Sent
# as EVAL (the text, not its digest): nothing comes back to say that Redis has forgotten a digest.
_NOTE_SCRIPT = """
local counters, values, firsts, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local arg = 5
for i = 1, counters do
  redis.call('INCR', KEYS[i])
  redis.call('EXPIRE', KEYS[i], ARGV[arg])
  arg = arg + 1
end
for i = counters + 1, counters + values do
  redis.call('SET', KEYS[i], ARGV[arg], 'EX', ttl)
  arg = arg + 1
end
for i = counters + values + 1, counters + values + firsts do
  redis.call('SET', KEYS[i], ARGV[arg], 'EX', ttl, 'NX')
  arg = arg + 1
end
return counters
"""


class _Unanswered:
    """A connection to Redis, one per process and thread (`config.redis_own`), on which Redis sends
    no replies (`CLIENT REPLY OFF`): a usage note is written to the socket and the request goes on,
    neither waiting for Redis nor reading an answer. A round trip cost about 0.3 ms of CPU per
    request on the machine of docs/performance.md. A note that cannot be sent is lost and logged, as
    when the cache is down.

    Redis runs one connection's commands in order, so `settle()` (one reply turned on, for one
    command) returns once every note this process sent so far has been applied: the reads settle
    first, so that a process always reads its own notes. Another process's note may still be on its
    way (a moment)."""

    def __init__(self) -> None:
        self.own = OwnConnection(replies=False)

    @property
    def connection(self):
        return self.own.current()

    def send(self, client, *command) -> None:
        self.own.send(client, *command)

    def settle(self) -> None:
        connection = self.own.current()
        if connection is None:
            return
        try:
            connection.send_command("CLIENT", "REPLY", "ON", check_health=False)
            connection.read_response()
            connection.send_command("CLIENT", "REPLY", "OFF", check_health=False)
        except Exception:
            self.own.drop()
            raise


_unanswered = _Unanswered()


class _RedisStore:
    """One unanswered script call per request on Redis (django-redis's raw client)."""

    def __init__(self, client) -> None:
        self.client = client

    @staticmethod
    def _key(name: str) -> str:
        return cache_key(caches[DEFAULT_CACHE_ALIAS], name)

    def note(self, counters: dict[str, int], values: dict[str, str], first: dict[str, str]) -> None:
        current = caches[DEFAULT_CACHE_ALIAS]  # `cache` is a per-thread proxy: resolved once
        keys = [cache_key(current, name) for name in (*counters, *values, *first)]
        args = [len(counters), len(values), len(first), _MONTH_TTL]
        args += [*counters.values(), *values.values(), *first.values()]
        _unanswered.send(self.client, "EVAL", _NOTE_SCRIPT, len(keys), *keys, *args)

    def take(self, names: list[str]) -> list[int]:
        _unanswered.settle()
        pipe = self.client.pipeline(transaction=True)
        for name in names:
            pipe.getdel(self._key(name))
        return [int(v or 0) for v in pipe.execute()]

    def read(self, names: list[str]) -> list[str | None]:
        _unanswered.settle()
        values = self.client.mget([self._key(n) for n in names])
        return [None if v is None else v.decode() for v in values]


def _store():
    client = redis_client(caches[DEFAULT_CACHE_ALIAS])
    return _RedisStore(client) if client is not None else _CacheStore()


def _guarded(default, function, *args):
    global _last_warning
    try:
        return function(*args)
    except Exception as exc:  # the cache is down: a statistic is lost, the request is not
        if time.monotonic() - _last_warning > 60:
            _last_warning = time.monotonic()
            logger.warning("Usage counters unavailable (%s)", type(exc).__name__)
        return default


def usage_record(*, principal, tenant_id: str | None, status: int, ip: str | None) -> None:
    now = timezone.now()
    counters: dict[str, int] = {}
    values: dict[str, str] = {}
    first: dict[str, str] = {}
    if principal.kind == "api_key":
        key = principal.id
        outcome = "ok" if status < 400 else "fail"
        counters |= {
            _name("ak", key, "n"): _MONTH_TTL,
            _name("ak", key, outcome): _MONTH_TTL,
            _name("ak", key, "h", _hour(now)): 2 * _HOUR,
            _name("ak", key, "d", _day(now)): 2 * _DAY,
        }
        values[_name("ak", key, "last")] = f"{now.isoformat()}|{ip or ''}"
        first[_name("ak", key, "first")] = now.isoformat()
    if tenant_id:
        counters[_name("tenant", tenant_id, "m", month_label(now))] = _MONTH_TTL
        values[_name("tenant", tenant_id, "last")] = now.isoformat()
    _guarded(None, _store().note, counters, values, first)


def api_key_window_counts(key_id) -> dict[str, int]:
    now = timezone.now()
    names = [_name("ak", key_id, "h", _hour(now)), _name("ak", key_id, "d", _day(now))]
    hour, day = _guarded([None, None], _store().read, names)
    return {"hourCount": int(hour or 0), "dayCount": int(day or 0)}


def tenant_calls(tenant_id, month: str) -> int:
    (value,) = _guarded([None], _store().read, [_name("tenant", tenant_id, "m", month)])
    return int(value or 0)


def api_key_usage_flush(key) -> None:
    """Move the cached counters onto the key's row (atomic increments; safe to run concurrently)."""
    from adminops.models import ApiKey

    kid = key.id
    names = [_name("ak", kid, "n"), _name("ak", kid, "ok"), _name("ak", kid, "fail")]
    total, ok, fail = _guarded([0, 0, 0], _store().take, names)
    last, first = _guarded([None, None], _store().read, [_name("ak", kid, "last"), _name("ak", kid, "first")])
    changes: dict = {}
    if total or ok or fail:
        changes |= {
            "usage_count": F("usage_count") + total,
            "success_count": F("success_count") + ok,
            "failure_count": F("failure_count") + fail,
        }
    if last:
        moment, _, ip = last.partition("|")
        when = _parse(moment)
        if key.last_used_at is None or when > key.last_used_at:
            changes |= {"last_used_at": when, "last_used_ip": ip}
    if first and key.first_used_at is None:
        changes["first_used_at"] = _parse(first)
    if changes:
        ApiKey.objects.filter(id=kid).update(**changes)
        key.refresh_from_db()


def _parse(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class UsageMiddleware:
    """Counts authenticated API calls once their response has left (see the module docstring): the
    note is made when the WSGI server closes the response, after writing it, so the client never
    waits for it (about a fortieth of a tool call on the machine of docs/performance.md)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        principal = getattr(request, "usage_principal", None)
        if principal is not None and response.status_code not in (401, 403):
            # Django's own list of what `close()` runs (a file response closes its file there).
            response._resource_closers.append(
                partial(
                    usage_record,
                    principal=principal,
                    tenant_id=_tenant_header(request),
                    status=response.status_code,
                    ip=request.META.get("REMOTE_ADDR"),
                )
            )
        return response


def _tenant_header(request) -> str | None:
    import uuid

    raw = request.headers.get("x-tenantid", "").strip()
    try:
        return str(uuid.UUID(raw)) if raw else None
    except ValueError:
        return None
