"""The list's `total` is exact (the contract) without counting the tenant's rows on every request: it
is the tenant's tally (`CredentialTally`), kept by database triggers in the same transaction as every
credential write. These tests hold the tally against a COUNT after every kind of write, including
the ones that bypass the services."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from core.audit import system_actor
from tests import factories
from tests.helpers import assert_ok
from tests.vault.conftest import URL, store_body
from vault import selectors
from vault.models import Credential, CredentialTally
from vault.services.credentials import credential_delete, credential_store, credential_update


def live_count(tenant) -> int:
    return Credential.objects.filter(tenant=tenant).exclude(status="deleted").count()


def assert_tally_exact(*tenants) -> None:
    for tenant in tenants:
        assert selectors.credential_live_count(tenant=tenant) == live_count(tenant)


def store(tenant, integration_id: str) -> Credential:
    return credential_store(
        tenant=tenant,
        actor=system_actor("tests"),
        integration_id=integration_id,
        name=integration_id,
        auth_type="api_key",
        access_token="t",
    )


def raw_row(tenant, integration_id: str, status: str = "active") -> Credential:
    return Credential.objects.create(
        tenant=tenant, integration_id=integration_id, name="raw", auth_type="api_key", status=status
    )


def test_the_total_follows_stores_updates_and_deletes(tenant, other_tenant):
    for n in range(5):
        store(tenant, f"sys-{n}")
    store(other_tenant, "elsewhere")
    assert_tally_exact(tenant, other_tenant)
    actor = system_actor("tests")
    credential_update(
        tenant=tenant, actor=actor, integration_id="sys-0", credential_id=None, changes={"status": "inactive"}
    )
    credential_delete(tenant=tenant, actor=actor, integration_id="sys-1", credential_id=None)
    assert selectors.credential_live_count(tenant=tenant) == 4
    assert_tally_exact(tenant, other_tenant)


def test_a_store_that_fails_counts_nothing(tenant):
    store(tenant, "sys-1")
    with pytest.raises(Exception, match="already exists"):
        store(tenant, "sys-1")
    with pytest.raises(IntegrityError), transaction.atomic():
        raw_row(tenant, "sys-1")
    assert selectors.credential_live_count(tenant=tenant) == 1
    assert_tally_exact(tenant)


def test_the_total_follows_writes_that_bypass_the_services(tenant, other_tenant):
    rows = [raw_row(tenant, f"raw-{n}") for n in range(6)]
    Credential.objects.bulk_create(
        [Credential(tenant=tenant, integration_id=f"bulk-{n}", name="b", auth_type="jwt") for n in range(3)]
    )
    raw_row(tenant, "tombstone", status="deleted")
    assert_tally_exact(tenant)
    Credential.objects.filter(integration_id__startswith="bulk-").update(status="deleted")
    Credential.objects.filter(integration_id="tombstone").update(status="active")
    rows[0].delete()
    Credential.objects.filter(integration_id__in=["raw-1", "raw-2"]).delete()
    rows[3].name = "saved again"
    rows[3].save()
    Credential.objects.filter(id=rows[4].id).update(tenant=other_tenant)
    assert selectors.credential_live_count(tenant=tenant) == 3
    assert selectors.credential_live_count(tenant=other_tenant) == 1
    assert_tally_exact(tenant, other_tenant)


def test_a_deleted_tenant_takes_its_tally_with_it(db):
    doomed = factories.make_tenant()
    for n in range(3):
        store(doomed, f"sys-{n}")
    doomed_id = doomed.id
    doomed.delete()
    assert not CredentialTally.objects.filter(tenant_id=doomed_id).exists()


def test_the_list_reports_the_exact_total_on_every_page(admin_api, viewer_api, tenant):
    for n in range(5):
        assert_ok(admin_api.post(URL, store_body(integrationId=f"sys-{n}"), format="json"))
    raw_row(tenant, "written-elsewhere")
    assert_ok(admin_api.delete(f"{URL}/sys-0/{_public_id(tenant, 'sys-0')}"))
    first = assert_ok(viewer_api.get(URL + "?limit=2"))
    last = assert_ok(viewer_api.get(URL + "?limit=2&offset=4"))
    past = assert_ok(viewer_api.get(URL + "?limit=2&offset=40"))
    assert first["pagination"] == {"total": 5, "limit": 2, "offset": 0, "hasMore": True}
    assert last["pagination"] == {"total": 5, "limit": 2, "offset": 4, "hasMore": False}
    assert len(last["credentials"]) == 1
    assert past["pagination"] == {"total": 5, "limit": 2, "offset": 40, "hasMore": False}
    assert past["credentials"] == []


def test_filtered_totals_count_the_filtered_rows(admin_api, viewer_api, tenant):
    for n, auth_type in enumerate(["api_key", "jwt", "api_key"]):
        assert_ok(
            admin_api.post(URL, store_body(integrationId=f"sys-{n}", authType=auth_type), format="json")
        )
    assert_ok(admin_api.delete(f"{URL}/sys-2/{_public_id(tenant, 'sys-2')}"))
    data = assert_ok(viewer_api.get(URL + "?authType=api_key&limit=1"))
    assert data["pagination"] == {"total": 1, "limit": 1, "offset": 0, "hasMore": False}
    past = assert_ok(viewer_api.get(URL + "?authType=api_key&isExpired=false&offset=5"))
    assert past["credentials"] == [] and past["pagination"]["total"] == 1
    deleted = assert_ok(viewer_api.get(URL + "?status=deleted&authType=api_key"))
    assert [c["integrationId"] for c in deleted["credentials"]] == ["sys-2"]
    assert deleted["pagination"]["total"] == 1
    assert assert_ok(viewer_api.get(URL + "?status=deleted&authType=jwt"))["pagination"]["total"] == 0


def test_an_empty_tenant_lists_nothing_with_a_total_of_zero(viewer_api):
    data = assert_ok(viewer_api.get(URL))
    assert data["credentials"] == []
    assert data["pagination"] == {"total": 0, "limit": 50, "offset": 0, "hasMore": False}


def _public_id(tenant, integration_id: str) -> str:
    row = Credential.objects.get(tenant=tenant, integration_id=integration_id, status="active")
    return row.public_id
