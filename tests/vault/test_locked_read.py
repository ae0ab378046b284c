"""The decrypted GET's locked read (`vault.selectors.credential_locked`) finds the rows the ORM's
query finds, loaded alike, and holds the row's lock until its transaction ends."""

from __future__ import annotations

import threading

import pytest
from django.db import DatabaseError, connection, transaction

from core.audit import system_actor
from tests.toolhub.support import make_credential
from vault.models import LIVE, Credential
from vault.selectors import credential_locked
from vault.services.credentials import credential_delete


def _store(tenant, integration_id: str) -> Credential:
    return make_credential(
        tenant,
        integration_id,
        auth_type="oauth2",
        scopes=["read", "write"],
        metadata={"region": "eu", "nested": {"n": 1}},
        expires_in=3600,
        access_token="at-1",
        refresh_token="rt-1",
    )


def _columns(credential: Credential) -> dict:
    return {field.attname: getattr(credential, field.attname) for field in Credential._meta.concrete_fields}


def _locked(**kwargs) -> Credential | None:
    with transaction.atomic():
        return credential_locked(**kwargs)


@pytest.mark.django_db
def test_the_live_credential_is_loaded_as_the_orm_loads_it(tenant):
    stored = _store(tenant, "crm")
    found = _locked(tenant=tenant, integration_id="crm", credential_id=None)
    expected = Credential.objects.filter(LIVE, tenant_id=tenant.pk, integration_id="crm").get()
    assert _columns(found) == _columns(expected)
    assert found.pk == stored.pk and found.metadata == {"region": "eu", "nested": {"n": 1}}
    assert found.scopes == ["read", "write"] and found.expires_at is not None
    assert found._state.adding is False  # a loaded row: saving it updates, never inserts


@pytest.mark.django_db
def test_a_tombstone_is_found_by_its_id_only(tenant):
    stored = _store(tenant, "crm")
    credential_delete(
        tenant=tenant, actor=system_actor("tests"), integration_id="crm", credential_id=stored.pk
    )
    assert _locked(tenant=tenant, integration_id="crm", credential_id=None) is None
    tombstone = _locked(tenant=tenant, integration_id="crm", credential_id=stored.pk)
    assert tombstone.status == Credential.Status.DELETED
    assert _columns(tombstone) == _columns(Credential.objects.get(pk=stored.pk))


@pytest.mark.django_db
def test_another_tenants_credential_and_another_integrations_id_are_not_found(tenant, other_tenant):
    stored = _store(tenant, "crm")
    _store(tenant, "wiki")
    assert _locked(tenant=other_tenant, integration_id="crm", credential_id=None) is None
    assert _locked(tenant=other_tenant, integration_id="crm", credential_id=stored.pk) is None
    assert _locked(tenant=tenant, integration_id="wiki", credential_id=stored.pk) is None
    assert _locked(tenant=tenant, integration_id="nope", credential_id=None) is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
def test_the_row_stays_locked_until_the_transaction_ends(tenant):
    _store(tenant, "crm")
    outcomes = []

    def try_lock():
        try:
            with transaction.atomic():
                rows = Credential.objects.select_for_update(nowait=True)
                rows.get(tenant_id=tenant.pk, integration_id="crm")
            outcomes.append("locked it")
        except DatabaseError:
            outcomes.append("found it held")
        finally:
            connection.close()

    def in_other_thread():
        thread = threading.Thread(target=try_lock)
        thread.start()
        thread.join()

    with transaction.atomic():
        assert credential_locked(tenant=tenant, integration_id="crm", credential_id=None) is not None
        in_other_thread()
    in_other_thread()
    assert outcomes == ["found it held", "locked it"]
