"""The audit writer (DESIGN section 7): one append-only table, written in the caller's transaction,
each tenant's entries linked by an HMAC hash chain that `verify_audit_chain` checks."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC
from functools import cache

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from adminops.models import AuditChainHead, AuditEntry

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
    details = _plain_json(details or {})
    _refuse_secrets(details)
    chain = str(tenant.id) if tenant is not None else PLATFORM_CHAIN
    # No savepoint of its own inside the caller's transaction (two fewer round trips per change):
    # an entry that fails to write must fail the change it records anyway.
    with transaction.atomic(savepoint=False):
        head = _locked_head(chain)
        entry = AuditEntry(
            chain=chain,
            seq=head.seq + 1,
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
            prev_hash=head.last_hash,
        )
        entry.hash = link_hash(entry)
        entry.save(force_insert=True)
        AuditChainHead.objects.filter(chain=chain).update(seq=entry.seq, last_hash=entry.hash)
    return entry


def _locked_head(chain: str) -> AuditChainHead:
    head = AuditChainHead.objects.select_for_update().filter(chain=chain).first()
    if head is None:
        AuditChainHead.objects.get_or_create(chain=chain)
        head = AuditChainHead.objects.select_for_update().get(chain=chain)
    return head


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


def audit_chains() -> list[str]:
    return list(AuditChainHead.objects.order_by("chain").values_list("chain", flat=True))


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
