"""Identity's section of a tenant's monthly usage report (core.reports): its API keys."""

from __future__ import annotations

from datetime import datetime

from core.api.timestamps import iso_ms
from core.models import Tenant
from core.reports import counts_by, report_section
from core.usage import month_label, tenant_calls
from identity.models import ApiKey
from identity.usage import api_key_usage_flush


@report_section("apiKeys")
def _api_keys(tenant: Tenant, start: datetime, end: datetime) -> dict:
    """Totals per key since it was made (the usage counters keep no per-month count of a key), and
    the tenant's authenticated API calls in the month."""
    keys = ApiKey.objects.filter(tenant=tenant).order_by("name")
    for key in keys.filter(status=ApiKey.Status.ACTIVE):
        api_key_usage_flush(key)
    return {
        "total": keys.count(),
        "byStatus": counts_by(keys, "status"),
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
