"""The audit trail is append-only and its hash chain shows an edited or removed entry."""

import re
import threading

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from core.audit import INSERT_ENTRY, audit_chain_verify, audit_chains, audit_record, link_hash, system_actor
from core.models import AuditChainHead, AuditEntry

pytestmark = pytest.mark.django_db


def write(tenant, n=3):
    return [
        audit_record(
            tenant=tenant,
            action="THING_DONE",
            category="tests",
            actor=system_actor("tests"),
            resource={"type": "thing", "id": str(i)},
            details={"n": i},
        )
        for i in range(n)
    ]


def test_entries_link_in_order_per_tenant(tenant, other_tenant):
    ours, theirs = write(tenant), write(other_tenant, 2)
    assert [e.seq for e in ours] == [1, 2, 3] and [e.seq for e in theirs] == [1, 2]
    assert {e.chain for e in ours} == {str(tenant.id)}  # nobody else writing: the tenant's first chain
    assert ours[1].prev_hash == ours[0].hash
    assert audit_chain_verify(str(tenant.id)) == [] and audit_chain_verify(str(other_tenant.id)) == []
    call_command("verify_audit_chain")


def test_the_model_refuses_updates_and_deletes(tenant):
    entry = write(tenant, 1)[0]
    entry.action = "OTHER"
    with pytest.raises(PermissionError):
        entry.save()
    with pytest.raises(PermissionError):
        entry.delete()
    with pytest.raises(PermissionError):
        AuditEntry.objects.filter(id=entry.id).update(action="OTHER")
    with pytest.raises(PermissionError):
        AuditEntry.objects.filter(id=entry.id).delete()


def test_an_edited_entry_is_detected(tenant):
    entries = write(tenant)
    entry_id = AuditEntry._meta.pk.get_db_prep_value(entries[1].id, connection)
    with connection.cursor() as cursor:  # what someone with database access could do
        cursor.execute("UPDATE adminops_auditentry SET details = %s WHERE id = %s", ['{"n": 99}', entry_id])
    problems = audit_chain_verify(str(tenant.id))
    assert problems == ["entry #2 (THING_DONE) was altered after it was written"]
    with pytest.raises(CommandError):
        call_command("verify_audit_chain", "--tenant", str(tenant.id))


def test_a_deleted_entry_is_detected(tenant):
    entries = write(tenant)
    AuditEntry.objects.filter(id=entries[1].id)._raw_delete(AuditEntry.objects.db)
    assert audit_chain_verify(str(tenant.id)) == ["entries #2..#2 are missing"]


def test_a_removed_last_entry_is_detected(tenant):
    entries = write(tenant)
    AuditEntry.objects.filter(id=entries[2].id)._raw_delete(AuditEntry.objects.db)
    assert audit_chain_verify(str(tenant.id)) == ["entries after #2 are missing (the chain ends at #3)"]


def entry_after(entry, n: int) -> AuditEntry:
    """An entry linked after `entry` by hand, as a writer with database access could make one."""
    forged = AuditEntry(
        tenant_id=entry.tenant_id,
        chain=entry.chain,
        seq=entry.seq + 1,
        action="THING_DONE",
        category="tests",
        actor=system_actor("tests"),
        resource={"type": "thing", "id": str(n)},
        details={"n": n},
        prev_hash=entry.hash,
    )
    forged.hash = link_hash(forged)
    return forged


def test_an_entry_that_does_not_link_onto_its_chain_head_is_not_written(tenant):
    entries = write(tenant)
    forged = entry_after(entries[2], 99)  # #4, but linked to #1's hash
    forged.prev_hash = entries[0].hash
    forged.hash = link_hash(forged)
    AuditEntry.objects.bulk_create([forged])
    assert AuditEntry.objects.count() == 3
    assert audit_chain_verify(str(tenant.id)) == []
    assert [e.seq for e in write(tenant, 1)] == [4]


def test_a_writer_that_moves_the_head_before_its_entry_still_writes_it(tenant):
    """A process of the release before the database moved heads itself (the head's UPDATE, then
    the entry), still running during a rolling deploy, loses no entry."""
    last = write(tenant)[-1]
    entry = entry_after(last, 4)
    with transaction.atomic():
        AuditChainHead.objects.filter(chain=last.chain).update(seq=entry.seq, last_hash=entry.hash)
        AuditEntry.objects.bulk_create([entry])
    assert AuditEntry.objects.count() == 4
    write(tenant, 1)  # this thread's head moved on without it: it writes on
    assert AuditEntry.objects.count() == 5
    assert all(audit_chain_verify(chain) == [] for chain in audit_chains(str(tenant.id)))


def test_an_entry_is_written_with_every_column_the_model_has(tenant):
    written = re.search(r'INSERT INTO "(\w+)" \(([^)]*)\) VALUES \(([^)]*)\)', INSERT_ENTRY)
    columns = [name.strip().strip('"') for name in written[2].split(",")]

    assert written[1] == AuditEntry._meta.db_table
    assert columns == [field.column for field in AuditEntry._meta.concrete_fields]
    assert written[3].split(", ") == ["%s"] * len(columns)
    (entry,) = write(tenant, 1)
    stored = AuditEntry.objects.get(id=entry.id)
    assert (stored.details, stored.chain, stored.seq, stored.hash) == ({"n": 0}, entry.chain, 1, entry.hash)


def test_secret_bearing_details_are_refused(tenant):
    with pytest.raises(ValueError, match="accessToken"):
        audit_record(
            tenant=tenant,
            action="X",
            category="tests",
            actor=system_actor("t"),
            resource={},
            details={"nested": {"accessToken": "s3cr3t"}},
        )
    assert not AuditEntry.objects.exists()


def test_an_entry_rolls_back_with_the_change_it_records(tenant):
    from django.db import transaction

    with pytest.raises(RuntimeError), transaction.atomic():
        write(tenant, 1)
        raise RuntimeError("the change failed")
    assert not AuditEntry.objects.exists()
    assert [e.seq for e in write(tenant, 1)] == [1]


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks between transactions need PostgreSQL"
)
def test_two_transactions_of_one_tenant_write_entries_without_waiting_for_each_other(tenant):
    first_written, second_done = threading.Event(), threading.Event()
    held = {}

    def long_change():
        try:
            with transaction.atomic():
                held["entry"] = write(tenant, 1)[0]
                first_written.set()
                assert second_done.wait(10), "the second change waited for this one's commit"
                held["again"] = write(tenant, 1)[0]  # its own chain's head, without waiting either
        finally:
            connection.close()

    thread = threading.Thread(target=long_change)
    thread.start()
    assert first_written.wait(10)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL lock_timeout = '2s'")  # a wait for the other head would fail
        second = write(tenant, 1)[0]
    second_done.set()
    thread.join(10)

    assert held["entry"].chain == str(tenant.id)
    assert second.chain == f"{tenant.id}.1" and second.seq == 1
    assert held["again"].chain == str(tenant.id) and held["again"].seq == 2
    assert audit_chains(str(tenant.id)) == sorted(audit_chains(str(tenant.id)))
    assert {str(tenant.id), f"{tenant.id}.1"} <= set(audit_chains(str(tenant.id)))
    for chain in audit_chains(str(tenant.id)):
        assert audit_chain_verify(chain) == []
    call_command("verify_audit_chain", "--tenant", str(tenant.id))

    AuditEntry.objects.filter(id=second.id)._raw_delete(AuditEntry.objects.db)  # tampering
    assert audit_chain_verify(f"{tenant.id}.1") == ["entries after #0 are missing (the chain ends at #1)"]
    with pytest.raises(CommandError, match="1 of"):
        call_command("verify_audit_chain", "--tenant", str(tenant.id))


@pytest.mark.django_db(transaction=True)
def test_writers_taking_turns_on_one_tenant_keep_every_chain_whole(tenant):
    """Each writer links its next entry to the head it moved last; when another writer has moved
    that head on since, or a rollback took the move back, the entry still links to the real head."""
    turns = [threading.Event() for _ in range(13)]
    written: list[AuditEntry] = []

    def writer(mine):
        try:
            for turn in mine:
                assert turns[turn].wait(10)
                if turn == 6:  # a change that fails after its entry was written
                    with pytest.raises(RuntimeError), transaction.atomic():
                        write(tenant, 1)
                        raise RuntimeError("the change failed")
                else:
                    written.extend(write(tenant, 2))
                turns[turn + 1].set()
        finally:
            connection.close()

    threads = [threading.Thread(target=writer, args=(range(n, 12, 2),)) for n in (0, 1)]
    for thread in threads:
        thread.start()
    turns[0].set()
    assert turns[12].wait(20)
    for thread in threads:
        thread.join(10)

    stored = AuditEntry.objects.filter(tenant_id=tenant.id)
    assert sorted(stored.values_list("id", flat=True)) == sorted(e.id for e in written)
    assert len(written) == 22
    for chain in audit_chains(str(tenant.id)):
        assert audit_chain_verify(chain) == []
    call_command("verify_audit_chain", "--tenant", str(tenant.id))
