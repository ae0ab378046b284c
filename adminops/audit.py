"""The audit writer (DESIGN section 7): one append-only table, written in the caller's transaction,
each tenant's entries linked by HMAC hash chains that `verify_audit_chain` checks.

A tenant's entries go to a small, fixed set of chains (`AUDIT_CHAIN_STRIPES`, named `<tenant>`,
`<tenant>.1`, `<tenant>.2`, ...), each an independent, verifiable HMAC chain with its own head row.
A writer locks the first head no other transaction holds (`FOR UPDATE SKIP LOCKED`), so two
concurrent audited changes of one tenant no longer wait for each other's COMMIT; with no contention
every entry goes to the first chain. A transaction that already holds a head always gets it again
(its own lock is never skipped), so it never waits on its tenant's heads. The hottest writes make
their change and entry in one statement instead (`audit_record_with`, below), each process on a
chain of its own choosing. docs/decisions.md has the reasoning."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import threading
from contextlib import nullcontext
from dataclasses import dataclass, replace
from datetime import UTC
from functools import cache

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from adminops.models import AuditChainHead, AuditEntry
from config.db import insert_params, insert_select_sql, inserted, prepared_cursor

PLATFORM_CHAIN = "platform"
GENESIS = "0" * 64
# Detail keys that would carry a secret; writing one is a bug, so it fails loudly.
_SECRET_KEYS = {
    "accesstoken",
    "refreshtoken",
    "password",
    "secret",
    "secrets",
    "clientsecret",
    "apikey",
    "newapikey",
    "token",
    "privatekey",
    "apitoken",
    "key",
}


def audit_record(
    *,
    tenant,
    action: str,
    category: str,
    actor: dict,
    resource: dict,
    details: dict | None = None,
    status: str = AuditEntry.Status.SUCCESS,
    request_id: str | None = None,
) -> AuditEntry:
    """Append one entry to the tenant's chain (the platform chain when `tenant` is None)."""
    entry = _new_entry(tenant, action, category, actor, resource, details, status, request_id)
    # No savepoint of its own inside the caller's transaction: an entry that fails to write must
    # fail the change it records anyway.
    with transaction.atomic(savepoint=False):
        _link(entry, *_locked_head(_owner(tenant)))
        entry.save(force_insert=True)
        AuditChainHead.objects.filter(chain=entry.chain).update(seq=entry.seq, last_hash=entry.hash)
    return entry


def _owner(tenant) -> str:
    return str(tenant.id) if tenant is not None else PLATFORM_CHAIN


def _new_entry(tenant, action, category, actor, resource, details, status, request_id) -> AuditEntry:
    """An entry not yet linked into a chain (`_link`)."""
    details = _plain_json(details or {})
    _refuse_secrets(details)
    return AuditEntry(
        tenant_id=tenant.id if tenant is not None else None,
        action=action,
        category=category,
        actor=_plain_json(actor),
        actor_id=str(actor.get("id") or ""),
        resource=_plain_json(resource),
        resource_type=str(resource.get("type") or ""),
        details=details,
        status=status,
        request_id=request_id or "",
        timestamp=timezone.now(),
    )


def _link(entry: AuditEntry, chain: str, seq: int, last_hash: str) -> None:
    """Make `entry` the next one of `chain`, whose head is (seq, last_hash)."""
    entry.chain, entry.seq, entry.prev_hash = chain, seq + 1, last_hash
    entry.hash = link_hash(entry)


# ---- a change and its entry in one statement (PostgreSQL)
#
# The hottest audited requests (a decrypted GET, a stored credential) would otherwise pay BEGIN, the
# head lock, the change, the entry and COMMIT as five round trips. Instead the caller reads the head
# of this process's preferred chain together with its own read (`AuditHeadPeek.columns`, no lock),
# links the entry in Python, and `audit_record_with` sends the change, the entry and the head's move
# as one statement that commits on its own: it locks the head only if it still is the one read
# (compare-and-set, `SKIP LOCKED`), and the change, the entry and the move all happen or none does.
# A head another writer moved or holds costs one retry under the head lock, as `audit_record` takes
# it, and this process then prefers another chain.

# What the caller's change must require (in its WHERE) so that it happens only with its entry.
CLAIMED = "EXISTS (SELECT 1 FROM audit_head)"
# What a further change made with it (`also`) must require: that the change happened.
CHANGED = "EXISTS (SELECT 1 FROM audit_change)"


def claimed_insert(instance) -> tuple[str, list]:
    """The change that stores `instance` (its primary key set by the caller) only with its entry,
    for `audit_record_with`; mark it stored (`config.db.inserted`) once that returns."""
    return f"{insert_select_sql(type(instance))} WHERE {CLAIMED} RETURNING 1", insert_params(instance)


def audit_in_one_statement() -> bool:
    """Whether `audit_record_with` can be used (data-modifying WITH queries and row locks)."""
    return connection.vendor == "postgresql"


@dataclass(frozen=True)
class AuditHeadPeek:
    """The chain this process means to write an owner's next entry to, and its head as last read."""

    owner: str
    chain: str
    seq: int | None = None  # None: not read, or the head does not exist yet
    last_hash: str | None = None

    def columns(self) -> tuple[str, list]:
        """Two scalar sub-selects for the caller to add to its own read, named `audit_head_seq` and
        `audit_head_hash`, and their parameters."""
        seq, last_hash = _peek_sql("seq"), _peek_sql("last_hash")
        return f"({seq}) AS audit_head_seq, ({last_hash}) AS audit_head_hash", [self.chain, self.chain]

    def read(self, seq, last_hash) -> AuditHeadPeek:
        return replace(self, seq=None if seq is None else int(seq), last_hash=last_hash)


def audit_head_peek(tenant) -> AuditHeadPeek:
    owner = _owner(tenant)
    names = owner_chains(owner)
    index = getattr(_preference, "index", None)
    if index is None or index >= len(names):
        index = _preference.index = _another_chain(names)
    return AuditHeadPeek(owner=owner, chain=names[index])


def audit_record_with(
    change_sql: str,
    change_params: list,
    *,
    head: AuditHeadPeek,
    also: tuple[str, list] | None = None,
    lock: tuple[str, list] | None = None,
    tenant,
    action: str,
    category: str,
    actor: dict,
    resource: dict,
    details: dict | None = None,
    status: str = AuditEntry.Status.SUCCESS,
    request_id: str | None = None,
) -> tuple | None:
    """Run the caller's change (an INSERT, UPDATE or DELETE that requires `CLAIMED` and RETURNs
    at most one row) and append its entry, all or nothing. Returns the change's row as the driver
    gives it, or None when the change matched no row: then nothing was written. `also`: one more
    change (SQL that requires `CHANGED`, and its parameters), made only together with them.
    `lock`: a `SELECT ... FOR UPDATE` of the existing rows the changes write, and its parameters,
    run before the head is claimed: a writer in a transaction locks its rows first and a head last
    (`audit_record`), so this statement must not hold a head while it waits for one of those rows."""
    entry = _new_entry(tenant, action, category, actor, resource, details, status, request_id)
    if head.seq is not None:
        _link(entry, head.chain, head.seq, head.last_hash)
        with _own_savepoint():
            claimed, row = _change_with_entry(change_sql, change_params, entry, also, lock)
        if claimed:
            return row
        _preference.index = _another_chain(owner_chains(head.owner), head.chain)
    with transaction.atomic():
        if lock is not None:  # the rows before the head, here too
            with prepared_cursor() as cursor:
                cursor.execute(*lock)
        _link(entry, *_locked_head(head.owner))
        claimed, row = _change_with_entry(change_sql, change_params, entry, also, None)
    return row


def _change_with_entry(
    change_sql: str,
    change_params: list,
    entry: AuditEntry,
    also: tuple[str, list] | None,
    lock: tuple[str, list] | None,
) -> tuple[bool, tuple | None]:
    also_sql, also_params = also if also is not None else ("", [])
    lock_sql, lock_params = lock if lock is not None else ("", [])
    params = [*lock_params, entry.chain, entry.seq - 1, *change_params, *also_params, entry.seq, entry.hash]
    params += insert_params(entry)
    with prepared_cursor() as cursor:
        cursor.execute(_change_with_entry_sql(change_sql, also_sql, lock_sql), params)
        claimed, changed, *row = cursor.fetchone()
    if not changed:
        return claimed, None
    inserted(entry)
    return claimed, tuple(row)


@cache
def _change_with_entry_sql(change_sql: str, also_sql: str = "", lock_sql: str = "") -> str:
    heads = connection.ops.quote_name(AuditChainHead._meta.db_table)
    also = f"audit_also AS ({also_sql}), " if also_sql else ""
    # The rows first: the head's filter counts them, so they are locked before the head is.
    rows_first = f"audit_lock AS ({lock_sql}), " if lock_sql else ""
    after_rows = " AND (SELECT count(*) FROM audit_lock) >= 0" if lock_sql else ""
    return (
        f"WITH {rows_first}audit_head AS (SELECT chain FROM {heads} WHERE chain = %s AND seq = %s"  # noqa: S608  # nosec B608: table names from the models, the caller's SQL and placeholders only
        f"{after_rows} FOR UPDATE SKIP LOCKED), "
        f"audit_change AS ({change_sql}), {also}"
        f"audit_move AS (UPDATE {heads} SET seq = %s, last_hash = %s "
        f"WHERE chain IN (SELECT chain FROM audit_head) AND {CHANGED}), "
        f"audit_entry AS ({insert_select_sql(AuditEntry)} WHERE {CHANGED}) "
        f"SELECT {CLAIMED}, EXISTS (SELECT 1 FROM audit_change), audit_change.* "
        f"FROM (SELECT) AS audit_one LEFT JOIN audit_change ON TRUE"
    )


@cache
def _peek_sql(column: str) -> str:
    table = connection.ops.quote_name(AuditChainHead._meta.db_table)
    return f"SELECT {column} FROM {table} WHERE chain = %s"  # noqa: S608  # nosec B608: a column and the table name only


def _own_savepoint():
    """Inside a caller's transaction a failed statement must not end it: a savepoint (outside one,
    the statement is its own transaction and needs none)."""
    return transaction.atomic() if connection.in_atomic_block else nullcontext()


# Each process (and thread) writes its one-statement entries to a chain of its own choosing, not the
# first one (where `audit_record` starts), and moves to another when it finds its chain contended.
_preference = threading.local()


def _another_chain(names: list[str], current: str | None = None) -> int:
    choices = [n for n in range(1 if len(names) > 1 else 0, len(names)) if names[n] != current] or [0]
    return random.choice(choices)  # spreading writers over chains, not a secret


def owner_chains(owner: str) -> list[str]:
    """The names of the chains one tenant (or the platform) writes to."""
    return [owner] + [f"{owner}.{n}" for n in range(1, settings.AUDIT_CHAIN_STRIPES)]


def audit_chains_open(owner: str) -> None:
    """Create the heads of `owner`'s chains. A new tenant's are created in the transaction that
    creates it (`on_tenant_created`): a head inserted by a transaction still running would make a
    second writer wait for that transaction's end, which is what several chains are there to avoid."""
    names = owner_chains(owner)
    AuditChainHead.objects.bulk_create([AuditChainHead(chain=name) for name in names], ignore_conflicts=True)


def on_tenant_created(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    """post_save receiver for Tenant (connected in AdminopsConfig.ready)."""
    if created and not raw:
        audit_chains_open(str(instance.pk))


def _locked_head(owner: str) -> tuple[str, int, str]:
    """(chain, seq, last hash) of one of `owner`'s chains, its head locked until the caller's
    transaction ends."""
    names = owner_chains(owner)
    row = _free_head(names)
    if row is None:
        # Either some heads do not exist yet (a tenant older than its stripes, or more stripes
        # configured) or every one is held by another transaction.
        audit_chains_open(owner)
        row = _free_head(names)
    if row is None:  # more concurrent writers than chains: wait for one, a different one per process
        head = AuditChainHead.objects.select_for_update().get(chain=names[os.getpid() % len(names)])
        row = (head.chain, head.seq, head.last_hash)
    return row


def _free_head(names: list[str]) -> tuple[str, int, str] | None:
    """The first of these heads no other transaction holds, locked until the caller's transaction
    ends. On a database without row locks (SQLite) the lock clause is left out: it serialises
    writers itself."""
    heads = AuditChainHead.objects.filter(chain__in=names).order_by("chain")
    return heads.select_for_update(skip_locked=True).values_list("chain", "seq", "last_hash").first()


@cache
def _chain_key() -> bytes:
    return hashlib.sha256(b"audit-chain|" + settings.AUDIT_HMAC_KEY.encode()).digest()


def link_hash(entry: AuditEntry) -> str:
    canonical = json.dumps(
        {
            "id": str(entry.id),
            "chain": entry.chain,
            "seq": entry.seq,
            "tenantId": str(entry.tenant_id) if entry.tenant_id else None,
            "action": entry.action,
            "category": entry.category,
            "actor": entry.actor,
            "resource": entry.resource,
            "details": entry.details,
            "status": entry.status,
            "requestId": entry.request_id,
            "timestamp": entry.timestamp.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    return hmac.new(_chain_key(), (entry.prev_hash + canonical).encode(), hashlib.sha256).hexdigest()


def audit_chain_verify(chain: str) -> list[str]:
    """Problems found in one chain: edited entries, missing entries, a truncated end."""
    problems: list[str] = []
    previous, expected = GENESIS, 1
    for entry in AuditEntry.objects.filter(chain=chain).order_by("seq").iterator():
        if entry.seq != expected:
            problems.append(f"entries #{expected}..#{entry.seq - 1} are missing")
        elif entry.prev_hash != previous:
            problems.append(f"entry #{entry.seq} does not link to the entry before it")
        if link_hash(entry) != entry.hash:
            problems.append(f"entry #{entry.seq} ({entry.action}) was altered after it was written")
        previous, expected = entry.hash, entry.seq + 1
    head = AuditChainHead.objects.filter(chain=chain).first()
    if head is not None and (head.seq != expected - 1 or head.last_hash != previous):
        problems.append(f"entries after #{expected - 1} are missing (the chain ends at #{head.seq})")
    return problems


def audit_chains(owner: str | None = None) -> list[str]:
    """Every chain, or those of one tenant (or the platform)."""
    heads = AuditChainHead.objects.order_by("chain")
    if owner is not None:
        heads = heads.filter(Q(chain=owner) | Q(chain__startswith=f"{owner}."))
    return list(heads.values_list("chain", flat=True))


def _plain_json(value):
    return json.loads(json.dumps(value, default=str))


def _refuse_secrets(value) -> None:
    if isinstance(value, dict):
        for key, sub in value.items():
            if str(key).replace("_", "").replace("-", "").lower() in _SECRET_KEYS:
                raise ValueError(f"Audit details must not carry a secret-bearing field ({key!r}).")
            _refuse_secrets(sub)
    elif isinstance(value, list):
        for sub in value:
            _refuse_secrets(sub)


def actor_of(request) -> dict:
    """The audit actor of an authenticated request."""
    return request.auth.as_actor(client_ip(request))


def client_ip(request) -> str | None:
    return request.META.get("REMOTE_ADDR")


def system_actor(name: str) -> dict:
    return {"type": "system", "id": f"system:{name}", "name": name, "email": "", "ipAddress": None}
