"""Audited credential writes and reads: the change and its entry commit together, concurrent
writers of one tenant keep every chain whole, and a held chain head is skipped, never waited for."""

import threading
import time

import pytest
from django.db import connection, connections, transaction

from core.api.errors import Conflict
from core.audit import audit_chain_verify, audit_chains, audit_record, system_actor
from core.models import AuditChainHead, AuditEntry
from vault.models import Credential
from vault.services.credentials import credential_read_secrets, credential_store

pytestmark = pytest.mark.django_db(transaction=True)
on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks between connections need PostgreSQL"
)
ACTOR = system_actor("tests")


def stored(tenant, integration_id="one") -> Credential:
    return credential_store(
        tenant=tenant,
        actor=ACTOR,
        integration_id=integration_id,
        name=integration_id,
        auth_type="api_key",
        access_token="tok",
    )


def every_chain_verifies(tenant) -> None:
    chains = audit_chains(str(tenant.id))
    assert chains and all(audit_chain_verify(chain) == [] for chain in chains)


def test_a_read_is_counted_and_audited_in_its_chain(tenant):
    credential = stored(tenant)

    read, revealed, _ = credential_read_secrets(tenant=tenant, actor=ACTOR, integration_id="one")

    assert revealed.access_token == "tok" and read.access_count == 1
    entry = AuditEntry.objects.get(action="CREDENTIAL_SECRET_READ")
    assert entry.resource == {"type": "credential", "id": credential.public_id, "name": "one"}
    assert AuditChainHead.objects.get(chain=entry.chain).seq == entry.seq
    assert Credential.objects.get(id=credential.id).access_count == 1
    every_chain_verifies(tenant)


def test_a_duplicate_store_writes_neither_the_row_nor_an_entry(tenant):
    stored(tenant)
    entries, heads = AuditEntry.objects.count(), list(AuditChainHead.objects.values_list("chain", "seq"))
    with pytest.raises(Conflict):
        stored(tenant)
    with pytest.raises(Conflict), transaction.atomic():  # inside a caller's transaction as well
        stored(tenant)
        raise AssertionError("unreachable")
    assert (AuditEntry.objects.count(), Credential.objects.count()) == (entries, 1)
    assert list(AuditChainHead.objects.values_list("chain", "seq")) == heads
    every_chain_verifies(tenant)


@on_postgresql
def test_a_head_held_by_another_transaction_is_not_waited_for(tenant):
    stored(tenant)
    first_chain = str(tenant.id)  # where an uncontended writer appends
    holding, release = threading.Event(), threading.Event()

    def hold_the_first_head():
        try:
            with transaction.atomic():
                AuditChainHead.objects.select_for_update().get(chain=first_chain)
                holding.set()
                release.wait(10)
        finally:
            connections["default"].close()

    thread = threading.Thread(target=hold_the_first_head)
    thread.start()
    try:
        assert holding.wait(10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")  # waiting for the held head would fail
        credential, revealed, _ = credential_read_secrets(tenant=tenant, actor=ACTOR, integration_id="one")
    finally:
        release.set()
        thread.join(10)
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    assert revealed.access_token == "tok" and credential.access_count == 1
    assert AuditEntry.objects.get(action="CREDENTIAL_SECRET_READ").chain != first_chain
    every_chain_verifies(tenant)


@on_postgresql
def test_concurrent_reads_and_stores_of_one_tenant_keep_every_chain_whole(tenant, settings):
    settings.AUDIT_CHAIN_STRIPES = 2  # two chains only: writers collide often
    stored(tenant)
    errors: list[BaseException] = []

    def worker(n: int):
        try:
            for i in range(25):
                credential_read_secrets(tenant=tenant, actor=ACTOR, integration_id="one")
                stored(tenant, f"w{n}-{i}")
                audit_record(
                    tenant=tenant,
                    action="THING_DONE",
                    category="tests",
                    actor=ACTOR,
                    resource={"type": "thing", "id": f"{n}-{i}"},
                )
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)
        finally:
            connections["default"].close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    assert errors == []
    assert Credential.objects.get(integration_id="one").access_count == 75
    assert AuditEntry.objects.filter(action="CREDENTIAL_SECRET_READ").count() == 75
    assert AuditEntry.objects.filter(action="CREDENTIAL_CREATED").count() == 76
    assert AuditEntry.objects.filter(action="THING_DONE").count() == 75
    every_chain_verifies(tenant)


@on_postgresql
def test_a_read_locks_its_row_before_a_head_so_a_transaction_holding_the_row_never_deadlocks(tenant):
    """A transaction locks its rows first and an audit head last (a refresh does: the credential's
    row, then a head, waited for when every head is taken). A read must take the same order, or
    the two wait for each other until PostgreSQL kills one of them."""
    credential = stored(tenant)
    first_chain = str(tenant.id)
    row_held, errors = threading.Event(), []

    def hold_the_row_then_wait_for_the_head():
        try:
            with transaction.atomic():
                Credential.objects.select_for_update().get(id=credential.id)
                row_held.set()
                time.sleep(0.5)  # the read below is waiting by now
                AuditChainHead.objects.select_for_update().get(chain=first_chain)
        except Exception as exc:  # a deadlock error, if the read held the head
            errors.append(exc)
        finally:
            connections["default"].close()

    thread = threading.Thread(target=hold_the_row_then_wait_for_the_head)
    thread.start()
    assert row_held.wait(10)
    read, revealed, _ = credential_read_secrets(tenant=tenant, actor=ACTOR, integration_id="one")
    thread.join(10)

    assert not thread.is_alive() and errors == []
    assert revealed.access_token == "tok" and read.access_count == 1
    assert AuditEntry.objects.filter(action="CREDENTIAL_SECRET_READ").count() == 1
    every_chain_verifies(tenant)
