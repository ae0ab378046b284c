"""Usage counters without a database write per request.

An authenticated API call that passes its tenant and access checks is counted in the cache in the
same round trip as its rate limits (`usage_tally`, through `core.api.ratelimit.counters_add`):
per API key its calls, the calls of the hour and of the day, first and last use with the address,
and per tenant the calls of the month. A call that then fails (4xx/5xx) is counted once more as a
failure when its response leaves (`UsageMiddleware`), so a successful call costs no round trip of
its own. `api_key_usage_flush` moves an API key's counts onto its row; it runs when a key is read
and every few minutes in the `usageFlush` job. The per-minute count is the rate limiter's own
bucket. When the cache is down, counting is skipped (logged): it is a statistic, not a control.
Identity reads an API key's counts and flushes them onto its row (identity.usage).
"""

from __future__ import annotations

from datetime import datetime

from django.core.cache import cache
from django.utils import timezone

from core.api.ratelimit import Note, Tally, counters_add
from core.cachedown import cache_down
from core.principals import Principal
from core.tenancy import tenant_id_hint

_HOUR, _DAY = 3600, 86400
_MONTH_TTL = 70 * _DAY


def counter_name(*parts) -> str:
    return "usage:" + ":".join(map(str, parts))


def hour_label(moment: datetime) -> str:
    return moment.strftime("%Y%m%d%H")


def day_label(moment: datetime) -> str:
    return moment.strftime("%Y%m%d")


def warn_unavailable(exc: Exception) -> None:
    cache_down("Usage counters", "not counted", exc)


def month_label(moment: datetime) -> str:
    return moment.strftime("%Y%m")


def usage_tally(*, principal: Principal, tenant_id: str | None, ip: str | None) -> Tally:
    """What one call adds to the usage counters (counted by the caller, with its rate limits)."""
    now = timezone.now()
    counters: dict[str, int] = {}
    notes: dict[str, Note] = {}
    if principal.kind == "api_key":
        key = principal.id
        counters |= {
            counter_name("ak", key, "calls"): _MONTH_TTL,
            counter_name("ak", key, "h", hour_label(now)): 2 * _HOUR,
            counter_name("ak", key, "d", day_label(now)): 2 * _DAY,
        }
        notes[counter_name("ak", key, "last")] = Note(f"{now.isoformat()}|{ip or ''}", _MONTH_TTL)
        notes[counter_name("ak", key, "first")] = Note(now.isoformat(), _MONTH_TTL, only_if_absent=True)
    if tenant_id:
        counters[counter_name("tenant", tenant_id, "m", month_label(now))] = _MONTH_TTL
    return Tally(counters, notes)


def usage_record(*, principal: Principal, tenant_id: str | None, ip: str | None, failed: bool) -> None:
    """Count one call on its own, where no rate limit was counted with it."""
    tally = usage_tally(principal=principal, tenant_id=tenant_id, ip=ip)
    counters = tally.counters
    if failed and principal.kind == "api_key":
        counters = counters | {counter_name("ak", principal.id, "fail"): _MONTH_TTL}
    try:
        counters_add(counters, notes=tally.notes)
    except Exception as exc:  # the cache is down: a statistic is lost, the request is not
        warn_unavailable(exc)


def usage_failure_record(*, principal: Principal) -> None:
    """Count a counted call whose answer was a failure (4xx/5xx)."""
    if principal.kind != "api_key":
        return
    try:
        counters_add({counter_name("ak", principal.id, "fail"): _MONTH_TTL})
    except Exception as exc:
        warn_unavailable(exc)


def counters_read(names: list[str]) -> dict:
    try:
        return cache.get_many(names)
    except Exception as exc:
        warn_unavailable(exc)
        return {}


def tenant_calls(tenant_id, month: str) -> int:
    name = counter_name("tenant", tenant_id, "m", month)
    return int(counters_read([name]).get(name) or 0)


class UsageMiddleware:
    """Counts the failures of counted calls as their response leaves (a response that the view
    marks `usage_counted`), and counts whole any other authenticated call that was not refused with
    401/403. DRF's authentication puts the principal on the Django request as `auth`."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        principal = getattr(request, "auth", None)
        if not isinstance(principal, Principal):
            return response
        failed = response.status_code >= 400
        if getattr(response, "usage_counted", False):
            if failed:
                usage_failure_record(principal=principal)
        elif response.status_code not in (401, 403):
            usage_record(
                principal=principal,
                tenant_id=_tenant_id(request),
                ip=request.META.get("REMOTE_ADDR"),
                failed=failed,
            )
        return response


def _tenant_id(request) -> str | None:
    tenant_id = tenant_id_hint(request)  # not a UUID: answered 400, counted for the key only
    return None if tenant_id is None else str(tenant_id)
