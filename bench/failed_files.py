"""Listing 5,000 failed files of one tenant and platform, on each store backend.

Prints, per backend, the time of the whole endpoint (POST /v2/cloudstore/failed-files through the
Django test client: authentication, tenancy, rate limit, validation, store, JSON), of the store's
`list` alone, and of the raw query for the same rows (the ORM's values_list; the SDK's
query_entities on the two partitions), as the median of several runs.

    .venv/bin/python -m bench.failed_files [--records 5000] [--repeat 7] [--backend orm|azure_tables]

The ORM runs on DATABASE_URL's engine (a throwaway test database is created and dropped). The Azure
backend runs when AZURITE_CONNECTION_STRING is set, or starts the emulator installed in .tools/ (see
.ci/run); a fresh table is created and deleted.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import time
import uuid
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-0123456789abcdef0123456789abcdef")
os.environ.setdefault("VAULT_MASTER_KEYS", "bench1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
os.environ.setdefault("DJANGO_LOG_LEVEL", "ERROR")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_databases, setup_test_environment, teardown_databases  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
AZURITE = ROOT / ".tools" / "node_modules" / ".bin" / "azurite-table"
DEV_ACCOUNT_KEY = (  # Azurite's well-known development account key (public)
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)
NOW = datetime.now(UTC)


def median_ms(function, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), result


def fake_rows(tenant_id: str, count: int):
    for n in range(count):
        content_type = "sitelib_article" if n % 2 else "sitelib_attachment"
        yield {
            "tenant_id": tenant_id,
            "content_type": content_type,
            "file_id": f"https://acme.sharepoint.example/sites/s{n % 40}/docs/file-{n:05d}.pdf",
            "file_name": f"file-{n:05d}.pdf",
            "source_url": f"https://acme.sharepoint.example/sites/s{n % 40}/docs/file-{n:05d}.pdf",
            "platform_domain": "acme.example.com",
            "error_type": "PARSE_ERROR",
            "error_message": "The document could not be parsed: unexpected end of stream in object 12.",
            "failed_at": NOW - timedelta(seconds=n * 30),
            "retry_count": 1 + n % 3,
        }


def seed_orm(tenant_id: str, count: int) -> None:
    from ingestion.models import FailedFileRow
    from ingestion.records import file_key

    FailedFileRow.objects.bulk_create(
        [FailedFileRow(file_key=file_key(row["file_id"]), **row) for row in fake_rows(tenant_id, count)],
        batch_size=500,
    )


def seed_azure(store, tenant_id: str, count: int) -> None:
    from ingestion.records import file_key
    from ingestion.store.azure_tables import BATCH_SIZE, partition_key

    store._ensure_table()
    batches: dict[str, list] = {}
    for row in fake_rows(tenant_id, count):
        pk = partition_key(row.pop("tenant_id"), row["content_type"])
        batch = batches.setdefault(pk, [])
        batch.append(("upsert", {"PartitionKey": pk, "RowKey": file_key(row["file_id"]), **row}))
        if len(batch) == BATCH_SIZE:
            store._table.submit_transaction(batch)
            batch.clear()
    for batch in batches.values():
        if batch:
            store._table.submit_transaction(batch)


def raw_orm(tenant_id: str, since: datetime):
    from ingestion.models import FailedFileRow

    return list(
        FailedFileRow.objects.filter(
            tenant_id=tenant_id,
            content_type__in=("sitelib_article", "sitelib_attachment"),
            failed_at__gte=since,
        )
        .order_by("-failed_at", "content_type", "file_id")
        .values_list(
            "file_id", "file_name", "source_url", "error_type", "error_message", "failed_at", "retry_count"
        )
    )


def raw_azure(store, tenant_id: str, since: datetime):
    from ingestion.store.azure_tables import _FIELDS, PAGE_SIZE, partition_key

    rows = []
    for content_type in ("sitelib_article", "sitelib_attachment"):
        rows.extend(
            store._table.query_entities(
                "PartitionKey eq @pk and failed_at ge @since",
                parameters={"pk": partition_key(tenant_id, content_type), "since": since},
                select=_FIELDS,
                results_per_page=PAGE_SIZE,
            )
        )
    return rows


def bench_backend(backend: str, *, records: int, repeat: int) -> list[tuple]:
    from core.models import Tenant
    from ingestion.selectors import failed_file_list
    from ingestion.services.failed_files import retention_cutoff
    from ingestion.store import failed_file_store
    from tests.factories import make_api_key

    settings.FAILED_FILES_BACKEND = backend
    tenant = Tenant.objects.create(name=f"bench-{backend}-{uuid.uuid4().hex[:6]}")
    tenant_id = str(tenant.id)
    store = failed_file_store()
    started = time.perf_counter()
    seed_orm(tenant_id, records) if backend == "orm" else seed_azure(store, tenant_id, records)
    seeded_s = time.perf_counter() - started
    _, key = make_api_key(tenant, ["knowledge:read"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}", HTTP_X_TENANTID=tenant_id)
    body = {
        "vectordb_config": {"platform_domain": "acme.example.com", "tenant_id": tenant_id},
        "platform_type": "sitelib",
    }
    since = retention_cutoff()

    def endpoint(query=""):
        response = client.post("/v2/cloudstore/failed-files" + query, body, format="json")
        assert response.status_code == 200, response.content[:300]
        return response.json()["data"]["failed_files"]

    rows = []
    for label, function in [
        ("endpoint, all rows", endpoint),
        ("endpoint, ?limit=50", lambda: endpoint("?limit=50")),
        ("store list, all rows", lambda: failed_file_list(tenant=tenant, platform_type="sitelib").items),
        (
            "raw ORM query" if backend == "orm" else "raw SDK query",
            (lambda: raw_orm(tenant_id, since))
            if backend == "orm"
            else (lambda: raw_azure(store, tenant_id, since)),
        ),
    ]:
        elapsed, result = median_ms(function, repeat)
        rows.append((backend, label, elapsed, len(result)))
    print(f"  {backend}: seeded {records} records in {seeded_s:.1f} s")
    if backend == "azure_tables":
        store._table.delete_table()
    return rows


@contextmanager
def azurite_connection_string():
    configured = os.environ.get("AZURITE_CONNECTION_STRING")
    if configured:
        yield configured
        return
    if not AZURITE.exists():
        yield None
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    emulator = subprocess.Popen(
        [
            str(AZURITE),
            *("--inMemoryPersistence", "--disableTelemetry", "--silent", "--skipApiVersionCheck"),
            *("--tableHost", "127.0.0.1", "--tablePort", str(port)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(60):
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.25)
        yield (
            f"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={DEV_ACCOUNT_KEY};"
            f"TableEndpoint=http://127.0.0.1:{port}/devstoreaccount1;"
        )
    finally:
        emulator.terminate()
        emulator.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--backend", choices=["orm", "azure_tables"], action="append")
    args = parser.parse_args()
    backends = args.backend or ["orm", "azure_tables"]

    setup_test_environment()
    databases = setup_databases(verbosity=0, interactive=False, serialized_aliases=[])
    settings.FAILED_FILES_TABLE = f"BenchFailedFiles{uuid.uuid4().hex[:8]}"
    rows = []
    try:
        with azurite_connection_string() as connection_string:
            for backend in backends:
                if backend == "azure_tables" and not connection_string:
                    print("  azure_tables: skipped (no AZURITE_CONNECTION_STRING and no emulator in .tools/)")
                    continue
                settings.AZURE_TABLES_CONNECTION_STRING = connection_string
                rows += bench_backend(backend, records=args.records, repeat=args.repeat)
    finally:
        teardown_databases(databases, verbosity=0)
    engine = connection.vendor
    print(
        f"\nfailed-files listing, {args.records} records of one tenant and platform, median of {args.repeat}"
    )
    print(f"(database: {engine})")
    print(f"{'backend':<14}{'what':<24}{'median ms':>11}{'rows':>7}")
    for backend, label, elapsed, count in rows:
        print(f"{backend:<14}{label:<24}{elapsed:>11.1f}{count:>7}")


if __name__ == "__main__":
    main()
