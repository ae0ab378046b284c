"""`failed_file_store()`: the backend named by FAILED_FILES_BACKEND, built once per configuration."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from ingestion.store.azure_tables import AzureTablesStore
from ingestion.store.base import FailedFileStore, StoreUnavailable
from ingestion.store.orm import OrmStore

BACKENDS = ("orm", "azure_tables")

__all__ = ["BACKENDS", "FailedFileStore", "StoreUnavailable", "failed_file_store", "store_for"]


def failed_file_store() -> FailedFileStore:
    return store_for(
        backend=settings.FAILED_FILES_BACKEND,
        connection_string=settings.AZURE_TABLES_CONNECTION_STRING,
        table_name=settings.FAILED_FILES_TABLE,
    )


@lru_cache(maxsize=8)
def store_for(*, backend: str, connection_string: str | None = None, table_name: str = "") -> FailedFileStore:
    # Cached: the Azure client keeps its connection pool and knows its table exists.
    if backend == "orm":
        return OrmStore()
    if backend == "azure_tables":
        if not connection_string:
            raise ImproperlyConfigured(
                "FAILED_FILES_BACKEND=azure_tables needs AZURE_TABLES_CONNECTION_STRING."
            )
        return AzureTablesStore(connection_string=connection_string, table_name=table_name)
    raise ImproperlyConfigured(f"FAILED_FILES_BACKEND must be one of {', '.join(BACKENDS)}, not {backend!r}.")
