"""The vault's part of a tenant's statistics and monthly usage report (core.reports): its
credentials, and the text they store."""

from __future__ import annotations

from datetime import datetime

from core.models import Tenant
from core.reports import counts_by, report_section, storage_measure, text_length
from vault.models import LIVE, Credential


@report_section("credentials")
def _credentials(tenant: Tenant, start: datetime, end: datetime) -> dict:
    rows = Credential.objects.for_tenant(tenant)
    live = rows.filter(LIVE)
    return {
        "total": live.count(),
        "byStatus": counts_by(rows, "status"),
        "byAuthType": counts_by(live, "auth_type"),
        "expired": live.filter(is_expired=True).count(),
        "createdInPeriod": rows.filter(created_at__gte=start, created_at__lt=end).count(),
        "deletedInPeriod": rows.filter(deleted_at__gte=start, deleted_at__lt=end).count(),
    }


@storage_measure("credentials")
def _credential_storage(tenant: Tenant) -> int:
    columns = ["integration_id", "name", "description", "metadata", "scopes", "token_endpoint"]
    columns += ["authorization_endpoint", "access_token", "refresh_token", "secrets"]
    return text_length(Credential.objects.for_tenant(tenant), *columns)
