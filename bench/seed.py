"""Seed the bench database: a tenant, an API key with every scope, 10,000 credentials (through the
vault service, so they are encrypted and audited like real ones), 5,000 failed-file records, and a
tool-hub connection (with its credential) to the loopback itdocs fake whose URL and key the harness
passes in BENCH_ITDOCS_URL / BENCH_ITDOCS_KEY. Prints one JSON line of placeholders for the
scenarios."""

from __future__ import annotations

import json
import os
from datetime import timedelta

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.db import transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from core.audit import system_actor  # noqa: E402
from core.models import Tenant  # noqa: E402
from identity.services.users import api_key_create  # noqa: E402
from ingestion.services.failed_files import failed_file_record  # noqa: E402
from vault.services.credentials import credential_store  # noqa: E402

CREDENTIALS = 10_000
FAILED_FILES = 5_000


def main() -> None:
    tenant = Tenant.objects.create(name="bench", domain="bench.test")
    actor = system_actor("bench")
    _, raw_key = api_key_create(tenant=tenant, name="bench", scopes=["*"], actor=actor)
    for start in range(0, CREDENTIALS, 500):
        with transaction.atomic():
            for n in range(start, start + 500):
                credential_store(
                    tenant=tenant,
                    actor=actor,
                    integration_id=f"bench-{n}",
                    name=f"Bench {n}",
                    auth_type="oauth2_bearer",
                    scopes=["read", "write"],
                    metadata={"n": n},
                    access_token=f"access-{n}-" + "x" * 40,
                    refresh_token=f"refresh-{n}-" + "y" * 40,
                )
    now = timezone.now()
    for n in range(FAILED_FILES):
        failed_file_record(
            tenant=tenant,
            platform_domain="bench.test",
            content_type=("sitelib_article", "sitelib_attachment")[n % 2],
            file_id=f"file-{n}",
            file_name=f"report-{n}.pdf",
            source_url=f"https://bench.test/f/{n}",
            error_type="PARSE_ERROR",
            error_message="could not parse",
            failed_at=now - timedelta(seconds=n),
        )
    context = {"tenant_id": str(tenant.id), "api_key": raw_key} | hub_connection(tenant, actor)
    print(json.dumps(context))


def hub_connection(tenant, actor) -> dict:
    """The default itdocs connection of the tenant, through the tool hub's own service (what the
    `createconnection` command calls). If the hub cannot be used, the scenarios that need it say
    so in the table instead of being measured."""
    url, key = os.environ.get("BENCH_ITDOCS_URL"), os.environ.get("BENCH_ITDOCS_KEY", "")
    if not url:
        return {"toolhub": "", "toolhub_error": "no itdocs fake (BENCH_ITDOCS_URL unset)"}
    try:
        from toolhub.services.connections import connection_create

        credential_store(
            tenant=tenant,
            actor=actor,
            integration_id="itdocs-bench",
            name="itdocs",
            auth_type="api_key",
            access_token=key,
        )
        connection = connection_create(
            tenant=tenant,
            actor=actor,
            name="itdocs-bench",
            domain="itdocs",
            connector="itdocs",
            base_url=url,
            integration_id="itdocs-bench",
        )
    except Exception as exc:  # reported in the table, never hidden
        return {"toolhub": "", "toolhub_error": f"{type(exc).__name__}: {exc}"[:200]}
    return {"toolhub": connection.public_id, "itdocs_key": key}


if __name__ == "__main__":
    main()
