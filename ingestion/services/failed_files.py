"""Writes to the failed-file store: what ingestion producers call, and retention.

Failed-file records are operational data written by the pipeline, not changes made by a person, so
they are not audited one by one; the retention job's runs are recorded in JobRun.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.api.errors import value_error
from core.models import Tenant
from ingestion.records import CONTENT_TYPES, ERROR_TYPES, FailedFile, FailureReport
from ingestion.store import failed_file_store

logger = logging.getLogger(__name__)

MAX_FILE_ID = 2048
MAX_FILE_NAME = 1024
MAX_SOURCE_URL = 4096
MAX_DOMAIN = 255
MAX_ERROR_MESSAGE = 4000  # longer messages are cut (a stack trace does not need to be kept whole)


def failed_file_record(
    *,
    tenant: Tenant,
    platform_domain: str,
    content_type: str,
    file_id: str,
    file_name: str,
    source_url: str,
    error_type: str,
    error_message: str,
    failed_at: datetime | None = None,
) -> FailedFile:
    """Record that a file failed ingestion; a repeat failure of the same file (same tenant, content
    type and file id) replaces the details and adds one to `retry_count`."""
    _check(content_type=content_type, error_type=error_type, file_id=file_id)
    _check_length("file_name", file_name, MAX_FILE_NAME)
    _check_length("source_url", source_url, MAX_SOURCE_URL)
    _check_length("platform_domain", platform_domain, MAX_DOMAIN)
    report = FailureReport(
        tenant_id=str(tenant.id),
        platform_domain=platform_domain,
        content_type=content_type,
        file_id=file_id,
        file_name=file_name,
        source_url=source_url,
        error_type=error_type,
        error_message=_clip(error_message, MAX_ERROR_MESSAGE),
        failed_at=_aware(failed_at or timezone.now()),
    )
    return failed_file_store().record(report)


def failed_file_remove(*, tenant: Tenant, content_type: str, file_id: str) -> bool:
    """Forget a file's failure (it was ingested after all); False when it had no record."""
    _check(content_type=content_type, file_id=file_id)
    return failed_file_store().remove(tenant_id=str(tenant.id), content_type=content_type, file_id=file_id)


def failed_files_forget_tenant(*, tenant: Tenant) -> int:
    """Delete all of a tenant's records: when the tenant is deleted (no cascade reaches the Azure
    table, and the ORM table holds the tenant as a plain value)."""
    return failed_file_store().forget_tenant(tenant_id=str(tenant.id))


def on_tenant_deleted(sender, instance: Tenant, **kwargs) -> None:
    """post_delete receiver for Tenant (connected in IngestionConfig.ready), whoever deletes it: the
    API, the console or a script. The records go once the deletion has committed, so a deletion
    that rolls back keeps them; `robust`: a store that is down then does not fail the deletion
    (logged; retention removes the records later)."""
    tenant_id = str(instance.pk)
    transaction.on_commit(lambda: _forget(tenant_id), robust=True)


def _forget(tenant_id: str) -> None:
    deleted = failed_file_store().forget_tenant(tenant_id=tenant_id)
    logger.info("Deleted %d failed-file records of the deleted tenant %s", deleted, tenant_id)


def failed_files_purge_expired(*, now: datetime | None = None) -> int:
    """Delete every tenant's records older than FAILED_FILES_RETENTION_DAYS; returns how many."""
    return failed_file_store().purge(before=retention_cutoff(now=now))


def retention_cutoff(*, now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(days=settings.FAILED_FILES_RETENTION_DAYS)


def _check(*, content_type: str, file_id: str, error_type: str | None = None) -> None:
    if content_type not in CONTENT_TYPES:
        raise value_error(
            "content_type", f"Must be one of {', '.join(CONTENT_TYPES)}.", v2_type="value_error.const"
        )
    if error_type is not None and error_type not in ERROR_TYPES:
        raise value_error(
            "error_type", f"Must be one of {', '.join(ERROR_TYPES)}.", v2_type="value_error.const"
        )
    if not file_id:
        raise value_error("file_id", "Must not be empty.", v2_type="value_error.any_str.min_length")
    _check_length("file_id", file_id, MAX_FILE_ID)


def _check_length(field: str, value: str, limit: int) -> None:
    if len(value) > limit:
        raise value_error(field, f"At most {limit} characters.", v2_type="value_error.any_str.max_length")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if timezone.is_naive(moment) else moment
