"""Usage counters without a database write per request.

An authenticated API call that passes its tenant and access checks is counted in the cache in the
same round trip as its rate limits (`usage_tally`, through `config.api.ratelimit.counters_add`):
per API key its calls, the calls of the hour and of the day, first and last use with the address,
and per tenant the calls of the month. A call that then fails (4xx/5xx) is counted once more as a
failure when its response leaves (`UsageMiddleware`), so a successful call costs no round trip of
its own. `api_key_usage_flush` moves an API key's counts onto its row; it runs when a key is read
and every few minutes in the `usageFlush` job. The per-minute count is the rate limiter's own
bucket. When the cache is down, counting is skipped (logged): it is a statistic, not a control.
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
from config.api.ratelimit import Bucket, Note, Tally, counters_add, principal_rate

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


def usage_tally(*, principal: Principal, tenant_id: str | None, ip: str | None) -> Tally:
    """What one call adds to the usage counters (counted by the caller, with its rate limits)."""
    now = timezone.now()
    counters: dict[str, int] = {}
    notes: dict[str, Note] = {}
    if principal.kind == "api_key":
        key = principal.id
        counters |= {
            _name("ak", key, "calls"): _MONTH_TTL,
            _name("ak", key, "h", _hour(now)): 2 * _HOUR,
            _name("ak", key, "d", _day(now)): 2 * _DAY,
        }
        notes[_name("ak", key, "last")] = Note(f"{now.isoformat()}|{ip or ''}", _MONTH_TTL)
        notes[_name("ak", key, "first")] = Note(now.isoformat(), _MONTH_TTL, only_if_absent=True)
    if tenant_id:
        counters[_name("tenant", tenant_id, "m", month_label(now))] = _MONTH_TTL
    return Tally(counters, notes)


def usage_record(*, principal: Principal, tenant_id: str | None, ip: str | None, failed: bool) -> None:
    """Count one call on its own, where no rate limit was counted with it."""
    tally = usage_tally(principal=principal, tenant_id=tenant_id, ip=ip)
    counters = tally.counters
    if failed and principal.kind == "api_key":
        counters = counters | {_name("ak", principal.id, "fail"): _MONTH_TTL}
    try:
        counters_add(counters, notes=tally.notes)
    except Exception as exc:  # the cache is down: a statistic is lost, the request is not
        _warn(exc)


def usage_failure_record(*, principal: Principal) -> None:
    """Count a counted call whose answer was a failure (4xx/5xx)."""
    if principal.kind != "api_key":
        return
    try:
        counters_add({_name("ak", principal.id, "fail"): _MONTH_TTL})
    except Exception as exc:
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

    calls, fail = _name("ak", key.id, "calls"), _name("ak", key.id, "fail")
    last, first = _name("ak", key.id, "last"), _name("ak", key.id, "first")
    with transaction.atomic():
        row = ApiKey.objects.select_for_update().only("last_used_at", "first_used_at").get(id=key.id)
        found = _read([calls, fail, last, first])
        taken = {name: int(found.get(name) or 0) for name in (calls, fail)}
        try:
            for name, count in taken.items():
                if count:
                    cache.decr(name, count)
        except Exception as exc:
            _warn(exc)
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


def api_keys_current_use(key_ids: list) -> dict[str, tuple[int, int]]:
    """str(key id) -> (its calls in the rate limiter's current minute, its calls this hour), read in
    one cache round trip (0 for what the cache cannot say)."""
    now, epoch = timezone.now(), int(time.time())
    names = {}
    for key_id in map(str, key_ids):
        rate_key = Principal(kind="api_key", id=key_id, name="").rate_key
        minute, _limit, _end = Bucket("principal", rate_key, principal_rate()).window(epoch)
        names[key_id] = (minute, _name("ak", key_id, "h", _hour(now)))
    found = _read([name for pair in names.values() for name in pair]) if names else {}
    return {key_id: (int(found.get(m) or 0), int(found.get(h) or 0)) for key_id, (m, h) in names.items()}
