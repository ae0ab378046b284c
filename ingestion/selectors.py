"""Reads: the failed-file store, sync configurations and runs."""

from __future__ import annotations

import uuid
from datetime import datetime

from core.api.errors import ResourceNotFound, value_error
from core.models import Tenant
from ingestion.models import SyncConfiguration, SyncRun
from ingestion.records import FailedFilePage, content_types_for
from ingestion.services.failed_files import retention_cutoff
from ingestion.store import failed_file_store


def configurations_using(credential) -> int:
    """How many of the tenant's sync configurations read with this vault credential (vault.usage
    asks)."""
    return SyncConfiguration.objects.filter(
        tenant_id=credential.tenant_id, integration_id=credential.integration_id
    ).count()


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


def sync_configuration_get(
    *,
    tenant: Tenant,
    configuration_id: uuid.UUID | None,
    platform: str | None = None,
    field: tuple = ("sync_configuration_id",),
) -> SyncConfiguration:
    """One of the tenant's configurations; another tenant's, and an id that could not be read
    (None), are "not found" too. With `platform`, one of another platform is a 422 on `field` that
    names the endpoint that runs it."""
    rows = SyncConfiguration.objects.for_tenant(tenant).filter(id=configuration_id)
    found = rows.first() if configuration_id is not None else None
    if found is None:
        raise ResourceNotFound("Sync configuration not found.")
    if platform and found.platform != platform:
        raise value_error(
            field,
            f"This configuration reads {found.platform}, not {platform}: "
            f"run it with POST /v2/{found.platform}/ingest.",
        )
    found.tenant = tenant
    return found


def sync_run_page(
    *,
    tenant: Tenant,
    platform: str,
    limit: int,
    offset: int,
    job_id: str | None = None,
    run_id: uuid.UUID | None = None,
    configuration_id: uuid.UUID | None = None,
) -> tuple[list[SyncRun], int]:
    """The tenant's runs of the platform, newest first, narrowed by whichever ids are given."""
    runs = (
        SyncRun.objects.for_tenant(tenant)
        .filter(configuration__platform=platform)
        .select_related("configuration")
    )
    if job_id is not None:
        runs = runs.filter(job_id=job_id)
    if run_id is not None:
        runs = runs.filter(id=run_id)
    if configuration_id is not None:
        runs = runs.filter(configuration_id=configuration_id)
    page = list(runs.order_by("-queued_at", "-id")[offset : offset + limit])
    total = offset + len(page) if len(page) < limit and (page or not offset) else runs.count()
    return page, total
