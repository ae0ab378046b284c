"""What the failed-file store adds to a tenant's usage report and to its storage in the stats."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from core.models import Tenant
from core.reports import report_section, storage_measure
from ingestion.records import CONTENT_TYPES
from ingestion.store import failed_file_store


@report_section("failedFiles")
def failed_files_in_period(tenant: Tenant, start: datetime, end: datetime) -> dict:
    """Files whose latest failure falls in the period (a record keeps only a file's latest failure,
    and retention removes records after FAILED_FILES_RETENTION_DAYS)."""
    page = failed_file_store().list(
        tenant_id=str(tenant.id), content_types=CONTENT_TYPES, since=start, limit=None, offset=0
    )
    records = [r for r in page.items if r.failed_at < end]
    return {
        "total": len(records),
        "failures": sum(r.retry_count for r in records),
        "byContentType": dict(sorted(Counter(r.content_type for r in records).items())),
        "byErrorType": dict(sorted(Counter(r.error_type for r in records).items())),
    }


@storage_measure("failedFiles")
def failed_files_storage(tenant: Tenant) -> int:
    return failed_file_store().stored_size(tenant_id=str(tenant.id))
