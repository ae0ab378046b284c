"""Seed the bench database: a tenant, an API key with every scope, 10,000 credentials (through the
vault service, so they are encrypted and audited like real ones) and 5,000 failed-file records.
Prints one JSON line of placeholders for the scenarios."""

from __future__ import annotations

import json
import os
from datetime import timedelta

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.db import transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from adminops.audit import system_actor  # noqa: E402
from adminops.models import Tenant  # noqa: E402
from adminops.services import api_key_create  # noqa: E402
from ingestion.services import failed_file_record  # noqa: E402
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
    print(json.dumps({"tenant_id": str(tenant.id), "api_key": raw_key}))


if __name__ == "__main__":
    main()
