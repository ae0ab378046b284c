"""Queries per request of every bench/run scenario (docs/performance.md), as counts, never times, so
that a regression fails here before it shows in the benchmark. Each request is made the way the
bench makes it: an API key with every scope, a warm process (the key lookup cached, the tenant's
data key unwrapped)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from core.audit import audit_chain_verify, system_actor
from core.models import AuditEntry
from ingestion.services.failed_files import failed_file_record
from tests import factories
from tests.fakes.itdocs import FakeItdocs
from tests.helpers import assert_ok
from tests.knowledge.conftest import sitelib_body
from tests.toolhub.support import make_connection, make_credential
from toolhub.models import ExecutionRecord
from vault.models import Credential
from vault.services.credentials import credential_store

URL = "/api/v1/credentials"
# An audited change, as production runs it (outside any test transaction), in a warm thread (it
# remembers the audit chain head it moved last): BEGIN, the change, the entry (its INSERT moves and
# locks its chain's head: core migration 0002), COMMIT.
AUDITED_CHANGE = 4
# What an audit entry costs beyond its INSERT: nothing (the head moves in the INSERT's statement).
AUDIT_APPEND_EXTRA = 0
# Tool execute, as production runs it (outside any test transaction), warm: the connection with the
# tenant's approval policy comes from the routing cache (toolhub.routing) and its live credential
# from the use cache (vault.caches), then one transaction writes the execution record (whose INSERT
# counts its credential's use: toolhub migration 0007) and the audit entry (which moves its chain's
# head) between its BEGIN and COMMIT.
EXECUTE_QUERIES = 1 + 2 + AUDIT_APPEND_EXTRA + 1
LISTING_QUERIES = 0


# The row caches at work, as production runs them (a cache every process shares).
pytestmark = pytest.mark.usefixtures("shared_cache")


@pytest.fixture
def api(tenant) -> APIClient:
    _key, raw = factories.make_api_key(tenant, ["*"])
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw, HTTP_X_TENANTID=str(tenant.id))
    return client


@pytest.fixture
def credentials(tenant):
    for n in range(60):
        credential_store(
            tenant=tenant,
            actor=system_actor("tests"),
            integration_id=f"perf-{n}",
            name=f"Perf {n}",
            auth_type="oauth2_bearer",
            scopes=["read"],
            access_token=f"access-{n}",
            refresh_token=f"refresh-{n}",
        )


def warm(api, path: str = f"{URL}/perf-1") -> None:
    assert_ok(api.get(path))  # caches the key lookup, unwraps the tenant's data key


def test_details_is_one_query(api, credentials, django_assert_max_num_queries):
    warm(api)
    with django_assert_max_num_queries(1):  # the credential; the key comes from the lookup cache
        assert_ok(api.get(f"{URL}/perf-2/details"))


def test_a_cold_key_lookup_adds_one_query(api, credentials, django_assert_max_num_queries):
    warm(api)
    from django.core.cache import cache

    cache.clear()
    with django_assert_max_num_queries(2):  # the key (with its tenant), the credential
        assert_ok(api.get(f"{URL}/perf-2/details"))


@pytest.mark.django_db(transaction=True)
def test_decrypted_get_is_a_read_and_one_audit_entry(api, credentials, django_assert_num_queries):
    warm(api)
    # One transaction: BEGIN, the credential (locked), the entry (which moves its chain's head),
    # COMMIT. The database counts the read from its entry (vault migration 0005): no UPDATE is sent.
    with django_assert_num_queries(1 + AUDITED_CHANGE - 1):
        assert_ok(api.get(f"{URL}/perf-2"))
    read = AuditEntry.objects.filter(action="CREDENTIAL_SECRET_READ", resource__name="perf-2").get()
    assert read.hash and audit_chain_verify(read.chain) == []
    details = assert_ok(api.get(f"{URL}/perf-2/details"))
    assert details["accessCount"] == 1 and details["lastAccessedAt"] is not None


@pytest.mark.django_db(transaction=True)
def test_store_is_a_read_and_one_audited_change(api, credentials, django_assert_num_queries):
    warm(api)
    body = {"integrationId": "perf-new", "credentialName": "n", "authType": "api_key", "accessToken": "t"}
    # The row (an INSERT) and its entry in one transaction; the active data key's version comes
    # from its cache (vault.keyring.ACTIVE_DEKS).
    with django_assert_num_queries(AUDITED_CHANGE):
        assert_ok(api.post(URL, body, format="json"))
    created = AuditEntry.objects.filter(action="CREDENTIAL_CREATED", resource__name="perf-new").get()
    assert audit_chain_verify(created.chain) == []


def test_a_list_page_is_two_selects(api, credentials, django_assert_max_num_queries):
    warm(api)
    # The page, then its exact total (the sum of the tenant's tally rows): the ORM reads the total
    # in a query of its own, one more than the hand-written SELECT that carried it in a column.
    with django_assert_max_num_queries(2):
        data = assert_ok(api.get(f"{URL}?limit=50"))
    assert len(data["credentials"]) == 50 and data["pagination"]["total"] == 60


def test_failed_files_is_a_count_and_a_select(api, tenant, django_assert_max_num_queries):
    for n in range(30):
        failed_file_record(
            tenant=tenant,
            platform_domain="perf.test",
            content_type="sitelib_article",
            file_id=f"file-{n}",
            file_name=f"f{n}.pdf",
            source_url=f"https://perf.test/{n}",
            error_type="PARSE_ERROR",
            error_message="could not parse",
        )
    warm(api, f"{URL}?limit=1")
    body = {"vectordb_config": {"platform_domain": "perf.test", "tenant_id": str(api_tenant(api))}}
    with django_assert_max_num_queries(2):
        response = api.post("/v2/cloudstore/failed-files", body | {"platform_type": "sitelib"}, format="json")
    assert response.status_code == 200 and response.json()["data"]["total"] == 30


@pytest.mark.django_db(transaction=True)
def test_tool_execute_has_a_fixed_query_count(api, tenant, settings, django_assert_num_queries):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    with FakeItdocs() as fake:
        config_id = fake.add_configuration(fake.add_organization("Perf"), "srv-01")
        make_credential(tenant, "itdocs-perf", access_token=fake.api_key)
        make_connection(tenant, fake.url, integration_id="itdocs-perf")
        url = "/api/v1/tools/itdocs.configuration.get/execute"
        body = {"input": {"configuration_id": config_id}}
        assert api.post(url, body, format="json").status_code == 200  # warm
        with django_assert_num_queries(EXECUTE_QUERIES):
            assert api.post(url, body, format="json").status_code == 200
    executed = AuditEntry.objects.filter(action="TOOL_EXECUTED")
    assert executed.count() == 2 and all(audit_chain_verify(e.chain) == [] for e in executed)
    assert ExecutionRecord.objects.filter(tenant=tenant, outcome="success").count() == 2
    assert Credential.objects.get(tenant=tenant, integration_id="itdocs-perf").access_count == 2


def test_the_sitelib_listing_asks_the_database_little(api, graph, django_assert_max_num_queries):
    for n in range(5):
        site = graph.add_site(f"/sites/s{n}", f"Site {n}")
        graph.add_drive(site, "Documents")
    assert api.post("/v2/sitelib/listing", sitelib_body(), format="json").status_code == 200
    with django_assert_max_num_queries(LISTING_QUERIES):
        response = api.post("/v2/sitelib/listing", sitelib_body(), format="json")
    assert response.status_code == 200 and response.json()["data"]["total"] == 5


def api_tenant(api) -> str:
    return api._credentials["HTTP_X_TENANTID"]
