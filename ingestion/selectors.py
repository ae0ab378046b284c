"""Reads of the failed-file store."""

from __future__ import annotations

from datetime import datetime

from adminops.models import Tenant
from ingestion.records import FailedFilePage, content_types_for
from ingestion.services import retention_cutoff
from ingestion.store import failed_file_store


def failed_file_list(
    *,
    tenant: Tenant,
    platform_type: str,
    limit: int | None = None,
    offset: int = 0,
    now: datetime | None = None,
) -> FailedFilePage:
    """The tenant's records of every content type of the platform, within retention, newest first."""
    return failed_file_store().list(
        tenant_id=str(tenant.id),
        content_types=content_types_for(platform_type),
        since=retention_cutoff(now=now),
        limit=limit,
        offset=offset,
    )
