"""The vault's panel on the console's dashboard (core.dashboard): credentials that have expired,
expire within a week, or whose last token refresh failed."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count, F, Q

from core.charts import BAD, WARN, Bar, bar_chart
from core.console import TENANT_ADMIN
from core.dashboard import Panel, Row, Scope, dashboard_panel
from vault.models import Credential

SOON = timedelta(days=7)


@dashboard_panel(roles=TENANT_ADMIN, order=30)
def credentials_needing_attention(scope: Scope) -> Panel:
    soon = scope.now + SOON
    expired = Q(is_expired=True) | Q(expires_at__lte=scope.now)
    expiring = Q(is_expired=False, expires_at__gt=scope.now, expires_at__lte=soon)
    failing = Q(refresh_failed_at__isnull=False) & (
        Q(last_refreshed_at__isnull=True) | Q(refresh_failed_at__gt=F("last_refreshed_at"))
    )
    live = Credential.objects.live().filter(status=Credential.Status.ACTIVE)
    per_tenant = list(
        scope.rows(live.filter(expired | expiring | failing))
        .values("tenant_id")
        .annotate(
            expired=Count("id", filter=expired),
            expiring=Count("id", filter=expiring),
            failing=Count("id", filter=failing),
        )
        .order_by("-expired", "-failing", "-expiring")
    )
    totals = {kind: sum(row[kind] for row in per_tenant) for kind in ("expired", "expiring", "failing")}
    bars = [
        Bar("Expired", totals["expired"], BAD, scope.changelist(Credential, is_expired__exact=1)),
        Bar("Expire within 7 days", totals["expiring"], WARN, scope.changelist(Credential)),
        Bar("Token refresh failing", totals["failing"], BAD, scope.changelist(Credential)),
    ]
    rows = [
        Row(
            (scope.tenant_name(row["tenant_id"]), row["expired"], row["expiring"], row["failing"]),
            scope.changelist(Credential, tenant__id__exact=row["tenant_id"]),
        )
        for row in per_tenant
    ]
    needing = sum(totals.values())
    return Panel(
        title="Credentials needing attention",
        summary=f"{totals['expired']} expired, {totals['expiring']} expire within 7 days, "
        f"{totals['failing']} failed their last token refresh.",
        link=scope.changelist(Credential),
        chart=bar_chart(bars, title="Credentials by problem"),
        headers=("Tenant", "Expired", "Expiring", "Refresh failing"),
        rows=rows,
        empty="" if needing else "Every active credential is valid for at least 7 more days.",
        attention=needing > 0,
    )
