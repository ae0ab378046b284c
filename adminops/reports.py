"""Per-tenant usage reports (the reportGeneration job), downloaded by operators in the console.

A report covers one calendar month (UTC): each run writes every tenant's report of the month so far
and, once a month has ended, that month's complete report if it does not have one yet. One report
per tenant and month: a later run replaces it, so running the job twice is harmless.

A report is made of sections: apps register `@report_section(name)` functions (tenant, start, end)
-> dict of counts, the way jobs and seed hooks are registered, so adminops reads no other app's
store. Counts, names and times only: never a secret (docs/administration.md lists the contents).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.apps import apps
from django.db.models import Count
from django.utils import timezone

from adminops.models import ApiKey, Tenant, UsageReport
from adminops.usage import api_key_usage_flush, month_label, tenant_calls
from config.api.timestamps import iso_ms

ReportSection = Callable[[Tenant, datetime, datetime], dict]
_SECTIONS: dict[str, ReportSection] = {}


def report_section(name: str) -> Callable[[ReportSection], ReportSection]:
    def register(function: ReportSection) -> ReportSection:
        _SECTIONS[name] = function
        return function

    return register


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
    for name, section in _SECTIONS.items():
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


def _counts(rows, field: str) -> dict[str, int]:
    return dict(rows.order_by().values_list(field).annotate(n=Count("pk")).values_list(field, "n"))


@report_section("apiKeys")
def _api_keys(tenant: Tenant, start: datetime, end: datetime) -> dict:
    """Totals per key since it was made (the usage counters keep no per-month count of a key), and
    the tenant's authenticated API calls in the month."""
    keys = ApiKey.objects.filter(tenant=tenant).order_by("name")
    for key in keys.filter(status=ApiKey.Status.ACTIVE):
        api_key_usage_flush(key)
    return {
        "total": keys.count(),
        "byStatus": _counts(keys, "status"),
        "apiCallsInPeriod": tenant_calls(tenant.id, month_label(start)),
        "keys": [
            {
                "name": key.name,
                "prefix": key.prefix,
                "status": key.status,
                "calls": key.usage_count,
                "successfulCalls": key.success_count,
                "failedCalls": key.failure_count,
                "firstUsedAt": iso_ms(key.first_used_at),
                "lastUsedAt": iso_ms(key.last_used_at),
            }
            for key in keys
        ],
    }


def _model(label: str):
    """Another app's model through the app registry (adminops imports no app above it)."""
    try:
        return apps.get_model(label)
    except LookupError:
        return None


@report_section("credentials")
def _credentials(tenant: Tenant, start: datetime, end: datetime) -> dict:
    model = _model("vault.Credential")
    if model is None:
        return {}
    rows = model.objects.filter(tenant=tenant)
    live = rows.exclude(status="deleted")
    return {
        "total": live.count(),
        "byStatus": _counts(rows, "status"),
        "byAuthType": _counts(live, "auth_type"),
        "expired": live.filter(is_expired=True).count(),
        "createdInPeriod": rows.filter(created_at__gte=start, created_at__lt=end).count(),
        "deletedInPeriod": rows.filter(deleted_at__gte=start, deleted_at__lt=end).count(),
    }


@report_section("toolCalls")
def _tool_calls(tenant: Tenant, start: datetime, end: datetime) -> dict:
    model = _model("toolhub.ExecutionRecord")
    if model is None:
        return {}
    rows = model.objects.filter(tenant=tenant, created_at__gte=start, created_at__lt=end)
    by_outcome = dict.fromkeys(model.Outcome.values, 0) | _counts(rows, "outcome")
    return {
        "total": sum(by_outcome.values()),
        "byOutcome": by_outcome,
        "byTool": _counts(rows, "tool_key"),
    }
