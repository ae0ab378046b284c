"""The failed-file store interface. Two backends keep the same semantics (DESIGN section 10):
`orm` (the database, the embedded default) and `azure_tables` (Azure Table Storage)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from core.api.errors import ServiceUnavailable
from ingestion.records import FailedFile, FailedFilePage, FailureReport


class StoreUnavailable(ServiceUnavailable):
    """The backend could not be reached or refused the operation (503; nothing was changed)."""

    def __init__(self) -> None:
        super().__init__("The failed-file store is unavailable.", code="STORE_UNAVAILABLE")


class FailedFileStore(Protocol):
    name: str

    def record(self, report: FailureReport) -> FailedFile:
        """Insert the file's record with retry_count 1, or, when the file has a record already,
        replace its details with this failure's and add one to retry_count (atomically)."""

    def remove(self, *, tenant_id: str, content_type: str, file_id: str) -> bool:
        """Delete the file's record; False when there was none."""

    def list(
        self,
        *,
        tenant_id: str,
        content_types: tuple[str, ...],
        since: datetime,
        limit: int | None,
        offset: int,
    ) -> FailedFilePage:
        """Records of these content types that failed at or after `since`, newest first (ties by
        content type, then file id); `total` counts them all, `items` is the requested slice."""

    def purge(self, *, before: datetime) -> int:
        """Delete every tenant's records that failed before `before`; returns how many."""

    def forget_tenant(self, *, tenant_id: str) -> int:
        """Delete all of one tenant's records (when the tenant itself is deleted)."""

    def stored_size(self, *, tenant_id: str) -> int:
        """Characters of text stored in one tenant's records (the tenant's storage, roughly)."""

    def probe(self) -> None:
        """A cheap read that raises when the backend is unavailable (the health check)."""


def sort_key(record: FailedFile) -> tuple:
    # Newest first; ties broken the same way in both backends so pages are stable.
    return (-record.failed_at.timestamp(), record.content_type, record.file_id)
