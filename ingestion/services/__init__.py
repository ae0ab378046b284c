"""Ingestion services: failed-file records, sync configurations and runs, source deletion."""

from ingestion.services.failed_files import (
    failed_file_record,
    failed_file_remove,
    failed_files_forget_tenant,
    failed_files_purge_expired,
    on_tenant_deleted,
    retention_cutoff,
)

__all__ = [
    "failed_file_record",
    "failed_file_remove",
    "failed_files_forget_tenant",
    "failed_files_purge_expired",
    "on_tenant_deleted",
    "retention_cutoff",
]
