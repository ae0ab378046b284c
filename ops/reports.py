"""Per-tenant usage reports (the reportGeneration job), downloaded by operators in the console.

A report covers one calendar month (UTC): each run writes every tenant's report of the month so far
and, once a month has ended, that month's complete report if it does not have one yet. One report
per tenant and month: a later run replaces it, so running the job twice is harmless. Its sections
are what the apps register (core.reports).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.utils import timezone

from core.api.timestamps import iso_ms
from core.models import Tenant
from core.reports import REPORT_SECTIONS
from ops.models import UsageReport


def month_start(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def next_month(start: datetime) -> datetime:
    return month_start(start + timedelta(days=32))


def usage_reports_generate(*, now: datetime | None = None, run_id=None) -> int:
    """Write every tenant's report of this month so far, and of last month unless a complete one
    exists (a tenant created this month has none). Returns how many reports were written."""
    now = now or timezone.now()
    this_month = month_start(now)
    last_month = month_start(this_month - timedelta(days=1))
    closed = set(
        UsageReport.objects.filter(period_start=last_month, complete=True).values_list("tenant_id", flat=True)
    )
    written = 0
    for tenant in Tenant.objects.order_by("name"):
        if tenant.id not in closed and tenant.created_at < this_month:
            usage_report_write(tenant=tenant, period_start=last_month, now=now, run_id=run_id)
            written += 1
        usage_report_write(tenant=tenant, period_start=this_month, now=now, run_id=run_id)
        written += 1
    return written


def usage_report_write(*, tenant: Tenant, period_start: datetime, now: datetime, run_id=None) -> UsageReport:
    period_end = min(now, next_month(period_start))
    complete = period_end == next_month(period_start)
    content = {
        "tenantId": str(tenant.id),
        "tenantName": tenant.name,
        "period": {"from": iso_ms(period_start), "to": iso_ms(period_end), "complete": complete},
        "generatedAt": iso_ms(now),
    }
    for name, section in REPORT_SECTIONS.items():
        content[name] = section(tenant, period_start, period_end)
    report, _ = UsageReport.objects.update_or_create(
        tenant=tenant,
        period_start=period_start,
        defaults={
            "period_end": period_end,
            "complete": complete,
            "content": content,
            "generated_at": now,
            "job_run_id": run_id,
        },
    )
    return report
