"""Sync configurations: created or reused by an upload, run again by "Sync Now" (DESIGN section 15).

A configuration names the vault credential its runs use; the request that creates it only checks
that the credential exists. Its secrets are read in the worker, when a run needs them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from adminops.audit import audit_record, system_actor
from adminops.models import Tenant
from config.api.errors import value_error
from ingestion.models import Platform, SyncConfiguration, SyncRun
from ingestion.selectors import sync_configuration_get
from ingestion.services.runs import RunAlreadyActive, sync_run_queue
from vault.selectors import credential_live_get

SCOPE_FIELDS = ("site_urls", "sub_sites", "drives", "folders", "pages")


@dataclass(frozen=True)
class UploadRequest:
    """An upload's body, parsed. `scope` and `content_restriction` are None when the body has none."""

    platform_domain: str
    integration_id: str | None
    scope: dict | None
    content_restriction: dict | None
    use_ocr: bool
    processor_mode: str
    incremental: bool
    last_sync: datetime | None
    sync_configuration_id: uuid.UUID | None
    job_id: str | None


def sitelib_upload(*, tenant: Tenant, upload: UploadRequest, actor: dict, request_id: str | None) -> SyncRun:
    """Create the configuration the body describes (or update the one it names) and queue its run;
    no call to the platform. 422 naming `integrationId` when the vault holds no such credential,
    404 for an unknown configuration, 409 while one of its runs is queued or running."""
    integration_id = upload.integration_id or f"sitelib-{upload.platform_domain}"
    if credential_live_get(tenant=tenant, integration_id=integration_id) is None:
        raise value_error(
            "integrationId",
            f"The vault holds no credential for integration '{integration_id}': store the app "
            "registration there first (docs/ingestion.md).",
            v2_type="value_error.credential",
        )
    with transaction.atomic():
        configuration = _configuration_for(tenant, upload, integration_id, actor, request_id)
        return sync_run_queue(
            configuration=configuration,
            kind=SyncRun.Kind.UPLOAD,
            incremental=upload.incremental,
            actor=actor,
            job_id=upload.job_id,
            since=upload.last_sync,
            request_id=request_id,
        )


def _configuration_for(
    tenant: Tenant, upload: UploadRequest, integration_id: str, actor: dict, request_id: str | None
) -> SyncConfiguration:
    if upload.sync_configuration_id is None:
        configuration = SyncConfiguration(
            tenant=tenant,
            platform=Platform.SITELIB,
            name=_name(upload),
            scope=upload.scope or {key: [] for key in SCOPE_FIELDS},
            content_restriction=upload.content_restriction or {},
        )
        action = "SYNC_CONFIGURATION_CREATED"
    else:
        configuration = sync_configuration_get(
            tenant=tenant, configuration_id=upload.sync_configuration_id, platform=Platform.SITELIB
        )
        if upload.scope is not None:
            configuration.scope = upload.scope
        if upload.content_restriction is not None:
            configuration.content_restriction = upload.content_restriction
        action = "SYNC_CONFIGURATION_UPDATED"
    configuration.integration_id = integration_id
    configuration.platform_domain = upload.platform_domain
    configuration.use_ocr = upload.use_ocr
    configuration.processor_mode = upload.processor_mode
    configuration.save()
    audit_record(
        tenant=tenant,
        action=action,
        category="ingestion",
        actor=actor,
        resource={"type": "sync_configuration", "id": configuration.public_id, "name": configuration.name},
        details={"platform": configuration.platform, "integrationId": integration_id},
        request_id=request_id,
    )
    return configuration


def _name(upload: UploadRequest) -> str:
    sites = (upload.scope or {}).get("site_urls") or []
    where = sites[0] if len(sites) == 1 else f"{len(sites)} sites" if sites else "every site"
    return f"sitelib {upload.platform_domain}: {where}"[:255]


def sitelib_ingest(
    *,
    tenant: Tenant,
    configuration_id: uuid.UUID,
    incremental: bool,
    actor: dict,
    request_id: str | None,
    kind: str = SyncRun.Kind.INGEST,
) -> SyncRun:
    """ "Sync Now": a new run of an existing configuration (404 unknown, 409 while one is active)."""
    configuration = sync_configuration_get(
        tenant=tenant, configuration_id=configuration_id, platform=Platform.SITELIB
    )
    return sync_run_queue(
        configuration=configuration, kind=kind, incremental=incremental, actor=actor, request_id=request_id
    )


def sync_configurations_run_due(*, now: datetime | None = None) -> int:
    """Queue a scheduled (incremental) run of every enabled `auto` configuration with an interval
    whose last run was queued at least that long ago and none of whose runs is active. Returns how
    many were queued."""
    now = now or timezone.now()
    scheduled = SyncConfiguration.objects.filter(
        enabled=True, interval_minutes__isnull=False, processor_mode=SyncConfiguration.ProcessorMode.AUTO
    ).exclude(runs__status__in=SyncRun.ACTIVE)
    queued = 0
    for configuration in scheduled.select_related("tenant"):
        latest = configuration.runs.order_by("-queued_at").values_list("queued_at", flat=True).first()
        if latest and latest > now - timedelta(minutes=configuration.interval_minutes):
            continue
        try:
            sync_run_queue(
                configuration=configuration,
                kind=SyncRun.Kind.SCHEDULED,
                incremental=True,
                actor=system_actor("beat"),
            )
        except RunAlreadyActive:
            continue  # an operator's run started meanwhile
        queued += 1
    return queued
