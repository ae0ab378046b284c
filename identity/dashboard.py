"""Identity's panel on the console's dashboard (core.dashboard): API keys near their rate limit."""

from __future__ import annotations

from django.db.models import F, Q

from core.charts import BAD, GOOD, WARN, Bar, bar_chart
from core.console import TENANT_ADMIN
from core.dashboard import Panel, Row, Scope, dashboard_panel
from identity.models import ApiKey
from identity.services.api_keys import per_minute_limit
from identity.usage import api_keys_current_use

NEAR_LIMIT = 0.8  # of the per-minute rate limit
KEYS_READ = 500  # the most recently used active keys; an idle key is not near its limit
KEYS_SHOWN = 6


@dashboard_panel(roles=TENANT_ADMIN, order=40)
def api_keys_near_their_limit(scope: Scope) -> Panel:
    keys = scope.rows(ApiKey.objects.filter(status=ApiKey.Status.ACTIVE))
    keys = keys.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=scope.now))
    keys = list(
        keys.order_by(F("last_used_at").desc(nulls_last=True)).values_list("id", "name", "tenant_id")[
            :KEYS_READ
        ]
    )
    use = api_keys_current_use([key_id for key_id, _, _ in keys])
    limit = per_minute_limit()
    busy = sorted(
        (
            (use[str(key_id)], key_id, name, tenant_id)
            for key_id, name, tenant_id in keys
            if any(use[str(key_id)])
        ),
        key=lambda row: row[0],
        reverse=True,
    )[:KEYS_SHOWN]
    near = sum(1 for minute, _hour in use.values() if minute >= NEAR_LIMIT * limit)
    link = scope.changelist(ApiKey)
    bars, rows = [], []
    for (minute, hour), key_id, name, tenant_id in busy:
        share = minute / limit
        key_link = scope.detail(ApiKey, key_id)
        color = BAD if share >= 1 else WARN if share >= NEAR_LIMIT else GOOD
        bars.append(Bar(name, round(100 * share, 1), color, key_link, f"{share:.0%}"))
        rows.append(Row((name, scope.tenant_name(tenant_id), f"{minute} / {limit}", hour), key_link))
    return Panel(
        title="API keys near their rate limit",
        summary=f"{near} of {len(keys)} active keys at {NEAR_LIMIT:.0%} or more of {limit} calls a minute.",
        link=link,
        chart=bar_chart(bars, maximum=100, title="Share of the per-minute limit used"),
        headers=("Key", "Tenant", "This minute", "This hour"),
        rows=rows,
        empty="" if busy else "No key has made calls this hour.",
        attention=near > 0,
    )
