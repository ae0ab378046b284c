"""Reads of the failed-file store."""

from __future__ import annotations

import uuid
from datetime import datetime

from adminops.models import Tenant
from config.api.errors import Forbidden
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


def vectordb_tenant_check(*, tenant: Tenant, tenant_id: str) -> None:
    """A /v2 body's `vectordb_config.tenant_id` must name the request's own tenant (DESIGN 12):
    a caller never names another tenant's data. 403 otherwise."""
    try:
        named = uuid.UUID(tenant_id.strip())
    except (ValueError, AttributeError):
        named = None
    if named != tenant.id:
        raise Forbidden("vectordb_config.tenant_id must be the tenant named in x-tenantid.")
