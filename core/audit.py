"""The audit writer (DESIGN section 7): one append-only table, written in the caller's transaction,
each tenant's entries linked by HMAC hash chains that `verify_audit_chain` checks.

A tenant's entries go to a small, fixed set of chains (`AUDIT_CHAIN_STRIPES`, named `<tenant>`,
`<tenant>.1`, `<tenant>.2`, ...), each an independent, verifiable HMAC chain with its own head row.
An entry moves its chain's head in the statement that inserts it: a database trigger (core
migration 0002) lets the row in only as the next link of a head no other transaction holds (`FOR
UPDATE SKIP LOCKED` on PostgreSQL) and moves that head onto it; otherwise the INSERT inserts
nothing. So two concurrent audited changes of one tenant never wait for each other's COMMIT, and a
chain never forks.

Each thread remembers the head it last moved, per tenant, and links its next entry to it: one
INSERT appends the entry. When that head has moved on or is held (another writer took it), the
writer locks the first free head after it (in chain order, wrapping round) and inserts again, so
writers that met on one chain part and then each keep their own; with no contention every entry goes
to the first chain. A transaction that already holds a head gets it again (its own lock is never
skipped), so it never waits on its tenant's heads. docs/decisions.md has the reasoning."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import threading
from datetime import UTC
from functools import cache

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Case, Q, When
from django.utils import timezone

from core.models import AuditChainHead, AuditEntry

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
    owner = _owner(tenant)
    last = _LAST_HEADS.by_owner.get(owner)
    # No savepoint of its own inside the caller's transaction: an entry that fails to write must
    # fail the change it records anyway.
    with transaction.atomic(savepoint=False):
        if last is None or not _append(entry, *last):
            locked = _locked_head(owner, after=last[0] if last else None)
            if not _append(entry, *locked):  # a locked head cannot move: never a fork
                raise RuntimeError(f"The audit chain head {locked[0]} moved while locked.")
    # Also when the transaction rolls back later: the head then is not where this says, and the
    # next entry's INSERT finds so and takes a locked head.
    _LAST_HEADS.by_owner[owner] = (entry.chain, entry.seq, entry.hash)
    # The stored row as the ORM loads one, so that the model's own `save()` refuses to change it.
    return AuditEntry.from_db(connection.alias, _ATTNAMES, [getattr(entry, name) for name in _ATTNAMES])


class _LastHeads(threading.local):
    """Per thread, as Django's connections are: owner -> (chain, seq, hash) of the head it moved
    last."""

    def __init__(self) -> None:
        self.by_owner: dict[str, tuple[str, int, str]] = {}


_LAST_HEADS = _LastHeads()


def _append(entry: AuditEntry, chain: str, seq: int, last_hash: str) -> bool:
    """Link `entry` after the head (seq, last_hash) of `chain` and insert it: the database moves the
    head onto it in the same statement if the head is still there and no other transaction holds it
    (this one's own lock is never skipped), else inserts nothing (False). The head stays locked
    until the caller's transaction ends."""
    _link(entry, chain, seq, last_hash)
    params = [field.get_db_prep_save(getattr(entry, field.attname), connection) for field in _COLUMNS]
    with connection.cursor() as cursor:
        cursor.execute(INSERT_ENTRY, params)
        return cursor.rowcount == 1


_COLUMNS = AuditEntry._meta.concrete_fields
_ATTNAMES = [field.attname for field in _COLUMNS]
# One entry's INSERT, written out (the ORM's `save()` does not say whether a row went in): the
# model's columns in the order of its fields, as tests/core/test_audit_chain.py checks.
INSERT_ENTRY = (
    'INSERT INTO "adminops_auditentry" ("id", "chain", "seq", "tenant_id", "action", "category", '
    '"actor", "actor_id", "resource", "resource_type", "details", "status", "request_id", "timestamp", '
    '"prev_hash", "hash") VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)'
)


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


def _locked_head(owner: str, *, after: str | None = None) -> tuple[str, int, str]:
    """(chain, seq, last hash) of one of `owner`'s chains, its head locked until the caller's
    transaction ends: the first free one after the chain `after` (wrapping round), else the first."""
    names = owner_chains(owner)
    row = _free_head(names, after)
    if row is None:
        # Either some heads do not exist yet (a tenant older than its stripes, or more stripes
        # configured) or every one is held by another transaction.
        audit_chains_open(owner)
        row = _free_head(names, after)
    if row is None:  # more concurrent writers than chains: wait for one, a different one per process
        head = AuditChainHead.objects.select_for_update().get(chain=names[os.getpid() % len(names)])
        row = (head.chain, head.seq, head.last_hash)
    return row


def _free_head(names: list[str], after: str | None) -> tuple[str, int, str] | None:
    """The first of these heads no other transaction holds, in chain order starting after the chain
    `after`, locked until the caller's transaction ends."""
    heads = AuditChainHead.objects.filter(chain__in=names)
    if after is not None:
        heads = heads.order_by(Case(When(chain__gt=after, then=0), default=1), "chain")
    else:
        heads = heads.order_by("chain")
    return _unheld(heads).values_list("chain", "seq", "last_hash").first()


def _unheld(heads):
    """These heads but those another transaction holds, locked until the caller's transaction ends
    (`FOR UPDATE SKIP LOCKED`). On a database without row locks (SQLite) the lock clause is left
    out: it serialises writers itself."""
    return heads.select_for_update(skip_locked=True)


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


def audit_chain_verify(chain: str, *, after: tuple[str, int] = (GENESIS, 1)) -> list[str]:
    """Problems found in one chain: edited entries, missing entries, a truncated end. `after`: the
    hash and the seq the table's first entry links on from (the end of the chain's archives)."""
    problems: list[str] = []
    entries = AuditEntry.objects.filter(chain=chain).order_by("seq").iterator()
    previous, expected = audit_links_check(entries, *after, problems)
    head = AuditChainHead.objects.filter(chain=chain).first()
    if head is not None and (head.seq != expected - 1 or head.last_hash != previous):
        problems.append(f"entries after #{expected - 1} are missing (the chain ends at #{head.seq})")
    return problems


def audit_links_check(entries, previous: str, expected: int, problems: list[str]) -> tuple[str, int]:
    """Check that `entries` (in seq order) link on from hash `previous` at seq `expected` and were
    not altered; add what is wrong to `problems`; return the hash and seq the next entry links on."""
    for entry in entries:
        if entry.seq != expected:
            problems.append(f"entries #{expected}..#{entry.seq - 1} are missing")
        elif entry.prev_hash != previous:
            problems.append(f"entry #{entry.seq} does not link to the entry before it")
        if link_hash(entry) != entry.hash:
            problems.append(f"entry #{entry.seq} ({entry.action}) was altered after it was written")
        previous, expected = entry.hash, entry.seq + 1
    return previous, expected


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
