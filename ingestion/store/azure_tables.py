"""The `azure_tables` backend: Azure Table Storage through the azure-data-tables SDK.

Key design (DESIGN section 10): PartitionKey `{tenant_id}|{content_type}`, RowKey the SHA-256 of
the file id. Every filter is built with the SDK's `parameters=` (it quotes and escapes values), never
by formatting a value into the filter text, so a tenant id holding a quote cannot widen a query.
The SDK substitutes only space-separated `@name` words, hence the spaces around every placeholder.

The endpoint comes from operator configuration (like DATABASE_URL), not from a caller, so the SDK's
own transport is used with explicit timeouts and bounded retries rather than the vendor-call client.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from collections import defaultdict
from datetime import datetime

from azure.core import MatchConditions
from azure.core.exceptions import (
    AzureError,
    ResourceExistsError,
    ResourceModifiedError,
    ResourceNotFoundError,
)
from azure.data.tables import TableClient, TableTransactionError, UpdateMode

from ingestion.records import CONTENT_TYPES, FailedFile, FailedFilePage, FailureReport, file_key
from ingestion.store.base import StoreUnavailable, sort_key

logger = logging.getLogger(__name__)

PAGE_SIZE = 1000  # the service's maximum entities per response
MAX_WRITE_ATTEMPTS = 20  # optimistic-concurrency rounds before giving up (503)
BATCH_SIZE = 100  # the service's maximum operations per transaction (one partition each)
_FIELDS = [
    "platform_domain",
    "content_type",
    "file_id",
    "file_name",
    "source_url",
    "error_type",
    "error_message",
    "failed_at",
    "retry_count",
]

_TEXT_FIELDS = [name for name in _FIELDS if name not in ("failed_at", "retry_count")]


def partition_key(tenant_id: str, content_type: str) -> str:
    return f"{tenant_id}|{content_type}"


class AzureTablesStore:
    name = "azure_tables"

    def __init__(self, *, connection_string: str, table_name: str) -> None:
        self.table_name = table_name
        self._table = TableClient.from_connection_string(
            connection_string,
            table_name,
            connection_timeout=5,
            read_timeout=20,
            retry_total=2,
            retry_backoff_factor=0.4,
            # The SDK logs every request and response at INFO; that belongs in DEBUG here.
            http_logging_level=logging.DEBUG,
        )
        self._ready = False
        self._lock = threading.Lock()

    def record(self, report: FailureReport) -> FailedFile:
        with _unavailable_on_error("record"):
            self._ensure_table()
            entity = _entity(report)
            for attempt in range(MAX_WRITE_ATTEMPTS):
                # Optimistic concurrency: read, then write conditioned on the ETag (or on absence),
                # so two workers recording the same file both count.
                stored = self._get(entity["PartitionKey"], entity["RowKey"])
                try:
                    if stored is None:
                        self._table.create_entity({**entity, "retry_count": 1})
                        return _as_record(report.tenant_id, {**entity, "retry_count": 1})
                    entity["retry_count"] = int(stored.get("retry_count", 0)) + 1
                    self._table.update_entity(
                        entity,
                        mode=UpdateMode.REPLACE,
                        etag=stored.metadata["etag"],
                        match_condition=MatchConditions.IfNotModified,
                    )
                    return _as_record(report.tenant_id, entity)
                except (ResourceExistsError, ResourceModifiedError):
                    time.sleep(random.uniform(0, 0.01 * (attempt + 1)))  # let the other writer finish
            raise StoreUnavailable()

    def remove(self, *, tenant_id: str, content_type: str, file_id: str) -> bool:
        with _unavailable_on_error("remove"):
            self._ensure_table()
            keys = (partition_key(tenant_id, content_type), file_key(file_id))
            if self._get(*keys) is None:
                return False
            self._table.delete_entity(*keys)
            return True

    def list(
        self,
        *,
        tenant_id: str,
        content_types: tuple[str, ...],
        since: datetime,
        limit: int | None,
        offset: int,
    ) -> FailedFilePage:
        with _unavailable_on_error("list"):
            self._ensure_table()
            records = []
            for content_type in content_types:
                entities = self._table.query_entities(
                    "PartitionKey eq @pk and failed_at ge @since",
                    parameters={"pk": partition_key(tenant_id, content_type), "since": since},
                    select=_FIELDS,
                    results_per_page=PAGE_SIZE,
                )
                records.extend(_as_record(tenant_id, entity) for entity in entities)
        records.sort(key=sort_key)
        window = records[offset:] if limit is None else records[offset : offset + limit]
        return FailedFilePage(items=window, total=len(records))

    def purge(self, *, before: datetime) -> int:
        # A full-table scan on one indexed-less property: acceptable for a daily job.
        return self._delete_matching("failed_at lt @before", {"before": before})

    def forget_tenant(self, *, tenant_id: str) -> int:
        # The tenant's partitions by their exact keys: a range scan on "{tenant}|" would also match a
        # tenant whose id continues with "|".
        return sum(
            self._delete_matching("PartitionKey eq @pk", {"pk": partition_key(tenant_id, content_type)})
            for content_type in CONTENT_TYPES
        )

    def stored_size(self, *, tenant_id: str) -> int:
        # The table has no aggregates: the tenant's partitions are read, their text properties only.
        with _unavailable_on_error("size"):
            self._ensure_table()
            return sum(
                sum(len(entity.get(name) or "") for name in _TEXT_FIELDS)
                for content_type in CONTENT_TYPES
                for entity in self._table.query_entities(
                    "PartitionKey eq @pk",
                    parameters={"pk": partition_key(tenant_id, content_type)},
                    select=_TEXT_FIELDS,
                    results_per_page=PAGE_SIZE,
                )
            )

    def probe(self) -> None:
        with _unavailable_on_error("probe"):
            self._ensure_table()
            next(iter(self._table.list_entities(results_per_page=1, select=["PartitionKey"])), None)

    def _delete_matching(self, query: str, parameters: dict) -> int:
        with _unavailable_on_error("delete"):
            self._ensure_table()
            by_partition: dict[str, list[str]] = defaultdict(list)
            matches = self._table.query_entities(
                query, parameters=parameters, select=["PartitionKey", "RowKey"], results_per_page=PAGE_SIZE
            )
            for entity in matches:  # collected first: deleting while paging could skip rows
                by_partition[entity["PartitionKey"]].append(entity["RowKey"])
            for pk, row_keys in by_partition.items():
                for start in range(0, len(row_keys), BATCH_SIZE):
                    self._delete_batch(pk, row_keys[start : start + BATCH_SIZE])
            return sum(len(row_keys) for row_keys in by_partition.values())

    def _delete_batch(self, pk: str, row_keys: list[str]) -> None:
        try:
            self._table.submit_transaction(
                [("delete", {"PartitionKey": pk, "RowKey": rk}) for rk in row_keys]
            )
        except TableTransactionError:
            # One row went away meanwhile (a resolved file): the batch is refused as a whole, so
            # delete one by one (a missing row is not an error there).
            for rk in row_keys:
                self._table.delete_entity(pk, rk)

    def _get(self, pk: str, rk: str):
        try:
            return self._table.get_entity(pk, rk)
        except ResourceNotFoundError:
            return None

    def _ensure_table(self) -> None:
        if self._ready:
            return
        with self._lock:
            if not self._ready:
                with contextlib.suppress(ResourceExistsError):  # created by another process
                    self._table.create_table()
                self._ready = True


class _unavailable_on_error:
    """Turn the SDK's errors into StoreUnavailable (503), logging the kind of error only: the
    SDK's messages can quote request URLs."""

    def __init__(self, operation: str) -> None:
        self.operation = operation

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is not None and isinstance(exc, AzureError):
            logger.warning("Azure Tables %s failed: %s", self.operation, type(exc).__name__)
            raise StoreUnavailable() from exc
        return False


def _entity(report: FailureReport) -> dict:
    return {
        "PartitionKey": partition_key(report.tenant_id, report.content_type),
        "RowKey": file_key(report.file_id),
        "platform_domain": report.platform_domain,
        "content_type": report.content_type,
        "file_id": report.file_id,
        "file_name": report.file_name,
        "source_url": report.source_url,
        "error_type": report.error_type,
        "error_message": report.error_message,
        "failed_at": report.failed_at,
    }


def _as_record(tenant_id: str, entity) -> FailedFile:
    return FailedFile(
        tenant_id=tenant_id,
        platform_domain=entity.get("platform_domain", ""),
        content_type=entity["content_type"],
        file_id=entity["file_id"],
        file_name=entity.get("file_name", ""),
        source_url=entity.get("source_url", ""),
        error_type=entity["error_type"],
        error_message=entity.get("error_message", ""),
        failed_at=entity["failed_at"],
        retry_count=int(entity.get("retry_count", 1)),
    )
