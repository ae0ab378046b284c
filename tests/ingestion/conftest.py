"""The failed-file store's tests run on every backend: `orm` always, `azure_tables` when an Azure
Tables emulator (Azurite) is configured in AZURITE_CONNECTION_STRING (.ci/run's services run starts
one). Each Azure test gets its own table, so runs and tests never share rows."""

from __future__ import annotations

import itertools
import os
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from ingestion.services.failed_files import failed_file_record
from ingestion.store import failed_file_store

AZURITE_ENV = "AZURITE_CONNECTION_STRING"
_RUN = uuid.uuid4().hex[:10]
_tables = itertools.count(1)

BACKENDS = [
    pytest.param("orm", id="orm"),
    pytest.param(
        "azure_tables",
        id="azure_tables",
        marks=pytest.mark.skipif(
            not os.environ.get(AZURITE_ENV),
            reason=f"no Azure Tables emulator: set {AZURITE_ENV} (see docs/ingestion.md)",
        ),
    ),
]


@pytest.fixture(params=BACKENDS)
def store(request, settings, db):
    """The configured failed-file store, on each backend in turn."""
    settings.FAILED_FILES_BACKEND = request.param
    if request.param == "azure_tables":
        settings.AZURE_TABLES_CONNECTION_STRING = os.environ[AZURITE_ENV]
        settings.FAILED_FILES_TABLE = f"ff{_RUN}t{next(_tables)}"
    store = failed_file_store()
    yield store
    if request.param == "azure_tables":
        store._table.delete_table()


@pytest.fixture
def record_failure(store):
    """record_failure(tenant, file_id, content_type=..., hours_ago=..., **fields) via the service."""

    def record(tenant, file_id, *, content_type="sitelib_attachment", hours_ago=0.0, **fields):
        return failed_file_record(
            tenant=tenant,
            platform_domain=fields.pop("platform_domain", "acme.example.com"),
            content_type=content_type,
            file_id=file_id,
            file_name=fields.pop("file_name", f"{file_id}.pdf"),
            source_url=fields.pop("source_url", f"https://files.example.com/{file_id}"),
            error_type=fields.pop("error_type", "PARSE_ERROR"),
            error_message=fields.pop("error_message", "The document could not be parsed."),
            failed_at=timezone.now() - timedelta(hours=hours_ago),
        )

    return record


# ---- ingestion runs: the fake identity and document-site platforms (tests/knowledge/conftest.py)
from tests.knowledge.conftest import (  # noqa: E402
    CLIENT_ID,
    CLOUD_TID,
    SECRET,
    app_certificate,  # noqa: F401
    graph,  # noqa: F401
    identity,  # noqa: F401
    platforms_reachable,  # noqa: F401
)

DOMAIN = "acme.example.com"


@pytest.fixture
def app_registration(tenant):
    """The tenant's vault credential for the document sites, under the default integration id."""
    from core.audit import system_actor
    from vault.services.credentials import credential_store

    return credential_store(
        tenant=tenant,
        actor=system_actor("tests"),
        integration_id=f"sitelib-{DOMAIN}",
        name="document sites",
        auth_type="oauth2_client_credentials",
        metadata={"cloud_tid": CLOUD_TID, "client_id": CLIENT_ID},
        secrets={"client_secret": SECRET},
    )


# ---- the wiki and IT-service platforms with content, and a run's end as the worker reports it
from tests.ingestion.platforms import itsm, wiki  # noqa: E402, F401
from tests.ingestion.runs import finished_runs  # noqa: E402, F401
