"""Sync configurations: created or reused by an upload, run again by "Sync Now", stopped ("Stop
Sync") or deleted with everything they ingested (DESIGN section 15).

A configuration names the vault credential its runs use. For the document sites that is a
credential the tenant stored beforehand (the request only checks that it exists); the wiki and
IT-service uploads carry their credentials in the body, and those are kept as a credential of the
tenant owned by the configuration (`ingestion-<configuration uuid>`): replaced by a later upload
that carries new ones, removed with the configuration. Secrets are read in the worker, when a run
needs them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.api.errors import value_error
from core.audit import audit_record, system_actor
from core.models import Tenant
from ingestion.models import SyncConfiguration, SyncRun, SyncRunItem
from ingestion.selectors import sync_configuration_get
from ingestion.services.failed_files import failed_file_remove
from ingestion.services.runs import RunAlreadyActive, sync_run_queue, sync_run_stop
from knowledge.vectors.store import documents_delete_of_configuration
from vault.selectors import credential_live_get
from vault.services.credentials import (
    credential_delete,
    credential_rotate,
    credential_store,
    credential_update,
)

SCOPE_FIELDS = ("site_urls", "sub_sites", "drives", "folders", "pages")
OWNED_PREFIX = "ingestion-"
PERMISSIONS_RESYNC = settings.PERMISSIONS_RESYNC_MINUTES
# Runs that read every item's readers when they discover the whole scope (not incrementally).
FULL_READS = (SyncRun.Kind.UPLOAD, SyncRun.Kind.INGEST, SyncRun.Kind.SCHEDULED)


@dataclass(frozen=True)
class PlatformAccount:
    """Credentials an upload body carries, to keep in the vault: `metadata` is shown, `secrets` are
    sealed."""

    auth_type: str
    metadata: dict
    secrets: dict = field(repr=False)


@dataclass(frozen=True)
class UploadRequest:
    """An upload's body, parsed. `scope` and `content_restriction` are None when the body has none."""

    platform: str
    platform_domain: str
    scope: dict | None
    content_restriction: dict | None
    use_ocr: bool
    processor_mode: str
    incremental: bool
    last_sync: datetime | None
    sync_configuration_id: uuid.UUID | None
    job_id: str | None
    integration_id: str | None = None  # sitelib: the vault credential holding the app registration
    account: PlatformAccount | None = None  # wikispace, itsmplatform
    name: str = ""


def upload(*, tenant: Tenant, upload: UploadRequest, actor: dict, request_id: str | None) -> SyncRun:
    """Create the configuration the body describes (or update the one it names) and queue its run;
    no call to the platform. 422 naming `integrationId` when a sitelib upload names no stored
    credential, 404 for an unknown configuration, 409 while one of its runs is queued or running."""
    integration_id = None
    if upload.account is None:
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
    tenant: Tenant, upload: UploadRequest, integration_id: str | None, actor: dict, request_id: str | None
) -> SyncConfiguration:
    if upload.sync_configuration_id is None:
        configuration = SyncConfiguration(
            id=uuid.uuid4(),
            tenant=tenant,
            platform=upload.platform,
            name=upload.name[:255],
            scope=upload.scope or {},
            content_restriction=upload.content_restriction or {},
        )
        action = "SYNC_CONFIGURATION_CREATED"
    else:
        configuration = sync_configuration_get(
            tenant=tenant,
            configuration_id=upload.sync_configuration_id,
            platform=upload.platform,
            field=("sync_config", "sync_configuration_id"),
        )
        if upload.scope is not None:
            configuration.scope = upload.scope
        if upload.content_restriction is not None:
            configuration.content_restriction = upload.content_restriction
        action = "SYNC_CONFIGURATION_UPDATED"
    if upload.account is not None:
        integration_id = _keep_account(configuration, upload.account, actor, request_id)
    configuration.integration_id = integration_id
    configuration.platform_domain = upload.platform_domain
    configuration.use_ocr = upload.use_ocr
    configuration.processor_mode = upload.processor_mode
    configuration.save()
    _audit(configuration, action, actor, request_id, {"integrationId": integration_id})
    return configuration


def _keep_account(
    configuration: SyncConfiguration, account: PlatformAccount, actor: dict, request_id: str | None
) -> str:
    """Store the body's credentials as the configuration's own vault credential, or replace the
    values of the one it has. Returns its integration id."""
    integration_id = f"{OWNED_PREFIX}{configuration.id}"
    tenant = configuration.tenant
    owned = credential_live_get(tenant=tenant, integration_id=integration_id)
    if owned is None:
        credential_store(
            tenant=tenant,
            actor=actor,
            integration_id=integration_id,
            name=f"{configuration.platform} ingestion: {configuration.name}"[:255],
            description=f"Kept for sync configuration {configuration.public_id}; removed with it.",
            auth_type=account.auth_type,
            metadata=account.metadata,
            secrets=account.secrets,
            request_id=request_id,
        )
        return integration_id
    if owned.metadata != account.metadata:
        credential_update(
            tenant=tenant,
            actor=actor,
            integration_id=integration_id,
            credential_id=owned.id,
            changes={"metadata": account.metadata},
            request_id=request_id,
        )
    credential_rotate(
        tenant=tenant, actor=actor, credential_id=owned.id, secrets=account.secrets, request_id=request_id
    )
    return integration_id


def _audit(configuration: SyncConfiguration, action: str, actor: dict, request_id: str | None, details: dict):
    audit_record(
        tenant=configuration.tenant,
        action=action,
        category="ingestion",
        actor=actor,
        resource={"type": "sync_configuration", "id": configuration.public_id, "name": configuration.name},
        details={"platform": configuration.platform, **details},
        request_id=request_id,
    )


def sync_now(
    *,
    tenant: Tenant,
    configuration_id: uuid.UUID,
    platform: str,
    incremental: bool,
    actor: dict,
    request_id: str | None,
    kind: str = SyncRun.Kind.INGEST,
) -> SyncRun:
    """ "Sync Now": a new run of an existing configuration (404 unknown, 409 while one is active)."""
    configuration = sync_configuration_get(
        tenant=tenant, configuration_id=configuration_id, platform=platform
    )
    return sync_run_queue(
        configuration=configuration, kind=kind, incremental=incremental, actor=actor, request_id=request_id
    )


def sync_configuration_change(
    *, configuration: SyncConfiguration, changes: dict, actor: dict, request_id: str | None = None
) -> SyncConfiguration:
    """Rename, schedule (`interval_minutes`, None for on request only) or switch on and off
    (`enabled`: false is Stop Sync)."""
    if changes.get("enabled") is False and configuration.enabled:
        configuration = sync_configuration_stop(
            configuration=configuration, actor=actor, request_id=request_id
        )
    changed = {name: value for name, value in changes.items() if getattr(configuration, name) != value}
    if changed:
        for name, value in changed.items():
            setattr(configuration, name, value)
        configuration.save(update_fields=[*changed, "updated_at"])
        _audit(configuration, "SYNC_CONFIGURATION_UPDATED", actor, request_id, {"changed": sorted(changed)})
    return configuration


def sync_configuration_stop(
    *, configuration: SyncConfiguration, actor: dict, request_id: str | None = None
) -> SyncConfiguration:
    """ "Stop Sync": no more scheduled runs, the active run stopped at its next document; what was
    ingested stays. Sync Now and uploads still run it."""
    with transaction.atomic():
        SyncConfiguration.objects.filter(id=configuration.id).update(enabled=False, updated_at=timezone.now())
        configuration.enabled = False
        for run in SyncRun.objects.filter(configuration=configuration, status__in=SyncRun.ACTIVE):
            sync_run_stop(run=run, actor=actor, request_id=request_id)
        _audit(configuration, "SYNC_CONFIGURATION_STOPPED", actor, request_id, {})
    return configuration


def sync_configuration_delete(
    *, configuration: SyncConfiguration, actor: dict, request_id: str | None = None
) -> dict:
    """Delete the configuration with its runs, the documents and vectors it ingested, its files'
    failure records and the credential it owns, in one transaction. A run still going finds its
    run gone at its next document and stops without writing. Returns what was removed."""
    tenant = configuration.tenant
    with transaction.atomic():
        failures = list(
            SyncRunItem.objects.filter(run__configuration=configuration, outcome=SyncRunItem.Outcome.FAILED)
            .values_list("item_key", "content_type")
            .distinct()
        )
        documents, vectors = documents_delete_of_configuration(
            tenant=tenant, sync_configuration_id=configuration.public_id
        )
        records = sum(
            failed_file_remove(tenant=tenant, content_type=content_type, file_id=key)
            for key, content_type in failures
            if content_type
        )
        owned = configuration.integration_id.startswith(OWNED_PREFIX) and credential_live_get(
            tenant=tenant, integration_id=configuration.integration_id
        )
        if owned:
            credential_delete(
                tenant=tenant,
                actor=actor,
                integration_id=owned.integration_id,
                credential_id=owned.id,
                request_id=request_id,
            )
        removed = {
            "documents_deleted": documents,
            "vectors_removed": vectors,
            "failed_files_removed": records,
            "credential_deleted": bool(owned),
        }
        _audit(configuration, "SYNC_CONFIGURATION_DELETED", actor, request_id, removed)
        configuration.delete()
    return removed


def sync_configurations_run_due(*, now: datetime | None = None) -> int:
    """Queue a scheduled (incremental) run of every enabled `auto` configuration with an interval
    whose last run was queued at least that long ago and none of whose runs is active. Returns how
    many were queued."""
    now = now or timezone.now()
    scheduled = SyncConfiguration.objects.filter(
        enabled=True, interval_minutes__isnull=False, processor_mode=SyncConfiguration.ProcessorMode.AUTO
    ).exclude(runs__status__in=SyncRun.ACTIVE)
    due = []
    for configuration in scheduled.select_related("tenant"):
        runs = configuration.runs.exclude(kind=SyncRun.Kind.PERMISSIONS)
        if not _queued_within(runs, now - timedelta(minutes=configuration.interval_minutes)):
            due.append(configuration)
    return _beat_queue(due, kind=SyncRun.Kind.SCHEDULED, incremental=True)


def _queued_within(runs, since: datetime) -> bool:
    latest = runs.order_by("-queued_at").values_list("queued_at", flat=True).first()
    return bool(latest and latest > since)


def _beat_queue(configurations: list[SyncConfiguration], *, kind: str, incremental: bool) -> int:
    """Queue a run of `kind` of each configuration for the beat; returns how many were queued (a
    configuration whose run an operator started meanwhile is left alone)."""
    queued = 0
    for configuration in configurations:
        try:
            sync_run_queue(
                configuration=configuration, kind=kind, incremental=incremental, actor=system_actor("beat")
            )
        except RunAlreadyActive:
            continue
        queued += 1
    return queued


# ---- source permissions (DESIGN section 19)


def permissions_pass(
    *, tenant: Tenant, configuration_id: uuid.UUID | None, actor: dict, request_id: str | None
) -> SyncRun:
    """A permissions pass of the configuration queued now (404 unknown, 409 while a run of it is
    queued or running)."""
    configuration = sync_configuration_get(tenant=tenant, configuration_id=configuration_id)
    return sync_run_queue(
        configuration=configuration,
        kind=SyncRun.Kind.PERMISSIONS,
        incremental=False,
        actor=actor,
        request_id=request_id,
    )


def permissions_passes_due(*, now: datetime | None = None) -> int:
    """Queue a permissions pass of every configuration that has indexed something (stopped ones
    too: their documents are still searched) and none of whose runs is active, when the readers of
    its items were last read (a permissions pass or a full run) longer ago than its interval or
    PERMISSIONS_RESYNC_MINUTES, whichever is shorter. Returns how many were queued."""
    now = now or timezone.now()
    indexed = SyncConfiguration.objects.filter(last_sync__isnull=False).exclude(
        runs__status__in=SyncRun.ACTIVE
    )
    due = []
    for configuration in indexed.select_related("tenant"):
        every = min(configuration.interval_minutes or PERMISSIONS_RESYNC, PERMISSIONS_RESYNC)
        read = configuration.runs.filter(
            Q(kind=SyncRun.Kind.PERMISSIONS)
            | Q(incremental=False, kind__in=FULL_READS, status__in=SyncRun.ENDED_WELL)
        )
        if not _queued_within(read, now - timedelta(minutes=every)):
            due.append(configuration)
    return _beat_queue(due, kind=SyncRun.Kind.PERMISSIONS, incremental=False)
