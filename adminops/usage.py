"""Usage counters without a database write per request.

After each authenticated API call, a middleware adds it to counters in the cache (one round trip on
Redis, `config.api.ratelimit.counters_add`) and notes the last use: per API key the 2xx/3xx and
4xx/5xx calls, the calls of the hour and of the day, first and last use with the address, and per
tenant the calls of the month. `api_key_usage_flush` moves an API key's counts onto its row; it runs
when a key is read and every few minutes in the `usageFlush` job. The per-minute count is the rate
limiter's own bucket. When the cache is down, counting is skipped (logged): it is a statistic, not a
control.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from adminops.principals import Principal
from adminops.tenancy import tenant_id_hint
from config.api.ratelimit import counters_add

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


def _warn(exc: Exception) -> None:
    global _last_warning
    if time.monotonic() - _last_warning > 60:
        _last_warning = time.monotonic()
        logger.warning("Usage counters unavailable (%s)", type(exc).__name__)


def usage_record(*, principal: Principal, tenant_id: str | None, status: int, ip: str | None) -> None:
    now = timezone.now()
    counters: dict[str, int] = {}
    if principal.kind == "api_key":
        key = principal.id
        counters |= {
            _name("ak", key, "ok" if status < 400 else "fail"): _MONTH_TTL,
            _name("ak", key, "h", _hour(now)): 2 * _HOUR,
            _name("ak", key, "d", _day(now)): 2 * _DAY,
        }
    if tenant_id:
        counters[_name("tenant", tenant_id, "m", month_label(now))] = _MONTH_TTL
    if not counters:
        return
    try:
        counts = counters_add(counters)
        if principal.kind == "api_key":
            cache.set(_name("ak", key, "last"), f"{now.isoformat()}|{ip or ''}", _MONTH_TTL)
            if counts[0] == 1:  # the first call since the counts were last moved onto the row
                cache.add(_name("ak", key, "first"), now.isoformat(), _MONTH_TTL)
    except Exception as exc:  # the cache is down: a statistic is lost, the request is not
        _warn(exc)


def _read(names: list[str]) -> dict:
    try:
        return cache.get_many(names)
    except Exception as exc:
        _warn(exc)
        return {}


def api_key_window_counts(key_id) -> dict[str, int]:
    now = timezone.now()
    hour, day = _name("ak", key_id, "h", _hour(now)), _name("ak", key_id, "d", _day(now))
    found = _read([hour, day])
    return {"hourCount": int(found.get(hour) or 0), "dayCount": int(found.get(day) or 0)}


def tenant_calls(tenant_id, month: str) -> int:
    name = _name("tenant", tenant_id, "m", month)
    return int(_read([name]).get(name) or 0)


def api_key_usage_flush(key) -> None:
    """Move the cached counts onto the key's row. The row is locked first, so concurrent flushes of
    one key take turns and each count is moved once; calls counted meanwhile stay in the cache."""
    from adminops.models import ApiKey

    ok, fail = _name("ak", key.id, "ok"), _name("ak", key.id, "fail")
    last, first = _name("ak", key.id, "last"), _name("ak", key.id, "first")
    with transaction.atomic():
        row = ApiKey.objects.select_for_update().only("last_used_at", "first_used_at").get(id=key.id)
        found = _read([ok, fail, last, first])
        taken = {name: int(found.get(name) or 0) for name in (ok, fail)}
        try:
            for name, count in taken.items():
                if count:
                    cache.decr(name, count)
        except Exception as exc:
            _warn(exc)
            return
        changes = _changes(row, taken[ok], taken[fail], found.get(last), found.get(first))
        if changes:
            ApiKey.objects.filter(id=key.id).update(**changes)
    if changes:
        key.refresh_from_db()


def _changes(row, ok: int, fail: int, last: str | None, first: str | None) -> dict:
    changes: dict = {}
    if ok or fail:
        changes |= {
            "usage_count": F("usage_count") + ok + fail,
            "success_count": F("success_count") + ok,
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


class UsageMiddleware:
    """Counts authenticated API calls (not those refused with 401/403) as their response leaves.
    DRF's authentication puts the principal on the Django request as `auth`."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        principal = getattr(request, "auth", None)
        if isinstance(principal, Principal) and response.status_code not in (401, 403):
            usage_record(
                principal=principal,
                tenant_id=_tenant_id(request),
                status=response.status_code,
                ip=request.META.get("REMOTE_ADDR"),
            )
        return response


def _tenant_id(request) -> str | None:
    tenant_id = tenant_id_hint(request)  # not a UUID: answered 400, counted for the key only
    return None if tenant_id is None else str(tenant_id)
