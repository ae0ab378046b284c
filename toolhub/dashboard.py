"""The tool hub's panels on the console's dashboard (core.dashboard): calls waiting for an
approver, and tool calls per hour by outcome over the last day."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count, Min
from django.db.models.functions import TruncHour
from django.utils.timesince import timesince

from core.charts import BAD, GOOD, INFO, QUIET, WARN, Series, stacked_columns
from core.console import APPROVERS, AUDITORS
from core.dashboard import Panel, Row, Scope, dashboard_panel
from toolhub.models import Approval, ExecutionRecord

HOURS = 24
Outcome = ExecutionRecord.Outcome
# (outcome, what a person calls it, colour)
OUTCOMES = (
    (Outcome.SUCCESS, "Succeeded", GOOD),
    (Outcome.ERROR, "Failed", BAD),
    (Outcome.APPROVAL_REQUIRED, "Held for approval", WARN),
    (Outcome.REPLAYED, "Replayed", INFO),
    (Outcome.DRY_RUN, "Dry run", QUIET),
)


@dashboard_panel(roles=APPROVERS, order=10)
def pending_approvals(scope: Scope) -> Panel:
    waiting = scope.rows(Approval.objects.filter(status=Approval.Status.PENDING, expires_at__gt=scope.now))
    per_tenant = list(
        waiting.values("tenant_id").annotate(calls=Count("id"), oldest=Min("created_at")).order_by("-calls")
    )
    total = sum(row["calls"] for row in per_tenant)
    pending = {"status__exact": Approval.Status.PENDING}
    rows = [
        Row(
            (scope.tenant_name(row["tenant_id"]), row["calls"], f"{timesince(row['oldest'], scope.now)} ago"),
            scope.changelist(Approval, **pending, tenant__id__exact=row["tenant_id"]),
        )
        for row in per_tenant
    ]
    return Panel(
        title="Approvals waiting",
        summary=f"{total} tool call{'' if total == 1 else 's'} waiting for an approver's decision.",
        link=scope.changelist(Approval, **pending),
        headers=("Tenant", "Waiting", "Oldest request"),
        rows=rows,
        empty="" if total else "No call is waiting for a decision.",
        attention=total > 0,
    )


@dashboard_panel(roles=AUDITORS, order=20)
def tool_calls_per_hour(scope: Scope) -> Panel:
    first = scope.now.replace(minute=0, second=0, microsecond=0) - timedelta(hours=HOURS - 1)
    hours = [first + timedelta(hours=i) for i in range(HOURS)]
    counts = (
        scope.rows(ExecutionRecord.objects.filter(created_at__gte=first))
        .annotate(hour=TruncHour("created_at"))
        .values("hour", "outcome")
        .annotate(calls=Count("id"))
        .order_by()
    )
    table = {(row["hour"].strftime("%Y%m%d%H"), row["outcome"]): row["calls"] for row in counts}
    series = [
        Series(label, colour, [table.get((h.strftime("%Y%m%d%H"), outcome), 0) for h in hours])
        for outcome, label, colour in OUTCOMES
    ]
    totals = {s.name: sum(s.values) for s in series}
    total = sum(totals.values())
    rows = [
        Row((label, totals[label]), scope.changelist(ExecutionRecord, outcome__exact=outcome))
        for outcome, label, _ in OUTCOMES
        if totals[label]
    ]
    return Panel(
        title="Tool calls per hour (last 24 hours, UTC)",
        summary=f"{total} call{'' if total == 1 else 's'}: {totals['Succeeded']} succeeded, "
        f"{totals['Failed']} failed.",
        link=scope.changelist(ExecutionRecord),
        chart=stacked_columns([f"{h:%H}:00" for h in hours], series, title="Tool calls per hour by outcome"),
        headers=("Outcome", "Calls"),
        rows=rows,
        empty="" if total else "No tool call in the last 24 hours.",
        attention=totals["Failed"] > 0,
    )
