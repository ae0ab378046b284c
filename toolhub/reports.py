"""The tool hub's section of a tenant's monthly usage report (core.reports): its tool calls."""

from __future__ import annotations

from datetime import datetime

from core.models import Tenant
from core.reports import counts_by, report_section
from toolhub.models import ExecutionRecord


@report_section("toolCalls")
def _tool_calls(tenant: Tenant, start: datetime, end: datetime) -> dict:
    rows = ExecutionRecord.objects.filter(tenant=tenant, created_at__gte=start, created_at__lt=end)
    by_outcome = dict.fromkeys(ExecutionRecord.Outcome.values, 0) | counts_by(rows, "outcome")
    return {
        "total": sum(by_outcome.values()),
        "byOutcome": by_outcome,
        "byTool": counts_by(rows, "tool_key"),
    }
