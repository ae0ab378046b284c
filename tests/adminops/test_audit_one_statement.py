"""A change and its audit entry in one statement (PostgreSQL): the decrypted GET and the store read
the audit head with their own read, then write the change, the entry and the head's move together,
all or nothing, and fall back to the locked head when another writer moved or holds it."""

import threading
import time

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from adminops.audit import (
    audit_chain_verify,
    audit_chains,
    audit_head_peek,
    audit_record,
    audit_record_with,
    system_actor,
)
from adminops.models import AuditChainHead, AuditEntry
from config.api.errors import Conflict
from vault.models import Credential
from vault.selectors import credential_live_with_head
from vault.services.common import credential_count_read, credential_count_with
from vault.services.credentials import credential_delete, credential_read_secrets, credential_store

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="one-statement audit is PostgreSQL's"),
]
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


def count_read(credential, head):
    """The decrypted GET's change and entry, as `credential_read_secrets` sends them."""
    return audit_record_with(
        *credential_count_read(credential, timezone.now()), head=head, **read_entry(credential)
    )


def read_entry(credential) -> dict:
    return {
        "tenant": credential.tenant,
        "action": "CREDENTIAL_SECRET_READ",
        "category": "credential",
        "actor": ACTOR,
        "resource": {"type": "credential", "id": credential.public_id, "name": credential.integration_id},
    }


def every_chain_verifies(tenant) -> None:
    chains = audit_chains(str(tenant.id))
    assert chains and all(audit_chain_verify(chain) == [] for chain in chains)


def test_a_read_is_counted_and_audited_in_its_chain(tenant):
    credential = stored(tenant)
    found, head = credential_live_with_head(tenant=tenant, integration_id="one", head=audit_head_peek(tenant))
    assert head.seq is not None and head.chain.startswith(str(tenant.id))

    assert count_read(found, head) == (1,)

    entry = AuditEntry.objects.get(action="CREDENTIAL_SECRET_READ")
    assert (entry.chain, entry.seq, entry.prev_hash) == (head.chain, head.seq + 1, head.last_hash)
    assert AuditChainHead.objects.get(chain=head.chain).seq == head.seq + 1
    assert Credential.objects.get(id=credential.id).access_count == 1
    every_chain_verifies(tenant)


def test_a_head_another_writer_moved_since_the_read_is_retried_under_its_lock(tenant):
    stored(tenant)
    found, head = credential_live_with_head(tenant=tenant, integration_id="one", head=audit_head_peek(tenant))
    # Another writer appends to the very chain this process read, between its read and its write.
    before = AuditEntry.objects.filter(chain=head.chain).count()
    assert count_read(found, head) == (1,)
    assert AuditEntry.objects.filter(chain=head.chain).count() == before + 1

    assert count_read(found, head) == (2,)  # the stale head is refused, the write goes through

    reads = AuditEntry.objects.filter(action="CREDENTIAL_SECRET_READ")
    assert reads.count() == 2 and Credential.objects.get(id=found.id).access_count == 2
    assert audit_head_peek(tenant).chain != head.chain  # this process now prefers another chain
    every_chain_verifies(tenant)


def test_a_head_held_by_another_transaction_is_not_waited_for(tenant):
    stored(tenant)
    peek = audit_head_peek(tenant)
    holding, release = threading.Event(), threading.Event()

    def hold_the_preferred_head():
        try:
            with transaction.atomic():
                AuditChainHead.objects.select_for_update().get(chain=peek.chain)
                holding.set()
                release.wait(10)
        finally:
            connections["default"].close()

    thread = threading.Thread(target=hold_the_preferred_head)
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
    entry = AuditEntry.objects.get(action="CREDENTIAL_SECRET_READ")
    assert entry.chain != peek.chain
    every_chain_verifies(tenant)


def test_a_credential_deleted_between_its_read_and_the_write_writes_nothing(tenant):
    stored(tenant)
    found, head = credential_live_with_head(tenant=tenant, integration_id="one", head=audit_head_peek(tenant))
    credential_delete(tenant=tenant, actor=ACTOR, integration_id="one", credential_id=found.id)
    entries, heads = AuditEntry.objects.count(), list(AuditChainHead.objects.values_list("chain", "seq"))

    assert count_read(found, head) is None

    assert AuditEntry.objects.count() == entries
    assert list(AuditChainHead.objects.values_list("chain", "seq")) == heads
    assert Credential.objects.get(id=found.id).access_count == 0


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


def test_concurrent_reads_and_stores_of_one_tenant_keep_every_chain_whole(tenant, settings):
    settings.AUDIT_CHAIN_STRIPES = 2  # two chains only: writers collide and fall back often
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


def test_a_further_change_is_made_once_with_the_change_and_never_without_it(tenant):
    counted = stored(tenant, "counted")
    stored(tenant)
    found, head = credential_live_with_head(tenant=tenant, integration_id="one", head=audit_head_peek(tenant))
    assert count_read(found, head) == (1,)  # moves the head this process read

    def read_counting_the_other(head):
        also = credential_count_with(counted.pk, timezone.now())
        change = credential_count_read(found, timezone.now())
        return audit_record_with(*change, head=head, also=also, **read_entry(found))

    assert read_counting_the_other(head) == (2,)  # a stale head, retried under its lock: once
    assert Credential.objects.get(id=counted.id).access_count == 1

    credential_delete(tenant=tenant, actor=ACTOR, integration_id="one", credential_id=found.id)
    _, head = credential_live_with_head(tenant=tenant, integration_id="counted", head=audit_head_peek(tenant))
    entries = AuditEntry.objects.count()

    assert read_counting_the_other(head) is None  # the change matched nothing: nothing else happens

    assert Credential.objects.get(id=counted.id).access_count == 1
    assert AuditEntry.objects.count() == entries
    every_chain_verifies(tenant)


def test_a_read_waits_for_its_row_before_it_takes_a_head_so_a_transaction_holding_the_row_never_deadlocks(
    tenant,
):
    """A transaction locks its rows first and an audit head last (a refresh does: the credential's
    row, then a head, waited for when every head is taken). The one-statement read must take the
    same order, or the two wait for each other until PostgreSQL kills one of them."""
    credential = stored(tenant)
    chain = audit_head_peek(tenant).chain  # where this thread's read will write its entry
    row_held, errors = threading.Event(), []

    def hold_the_row_then_wait_for_the_head():
        try:
            with transaction.atomic():
                Credential.objects.select_for_update().get(id=credential.id)
                row_held.set()
                time.sleep(0.5)  # the read below is waiting by now
                AuditChainHead.objects.select_for_update().get(chain=chain)
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
