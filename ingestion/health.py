"""The `storage` health check: one cheap read of the failed-file backend. Not critical: with the
store down the service is `degraded` and everything else keeps answering.

Registered only when the backend is a separate service (`azure_tables`): with `orm` the store is the
database, which the critical `database` check already probes.
"""

from __future__ import annotations

from django.conf import settings

from core.health import health_check_register
from ingestion.store import failed_file_store


def storage_probe() -> None:
    failed_file_store().probe()


def register() -> None:
    if settings.FAILED_FILES_BACKEND != "orm":
        health_check_register("storage", storage_probe, critical=False)
