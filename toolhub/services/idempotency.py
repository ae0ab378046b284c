"""Idempotency records (DESIGN section 9), in the database: a unique constraint decides who claims a
key, compare-and-set updates move it on, and no transaction is held open across the vendor call.

States: `running` (a call is in flight; `lease_until` says when it must have died) ->
`completed` (the response bytes are kept and replayed). A gated call starts in
`awaiting_approval` and moves to `running` once, when its approval has been granted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from adminops.models import Tenant
from toolhub.errors import IdempotencyInProgress, IdempotencyKeyReused
from toolhub.models import Approval, IdempotencyRecord

# A running call is given this long beyond its vendor timeout before a repeat may take it over.
LEASE_MARGIN = timedelta(seconds=30)
# Most calls take well under a second; a client told to wait the whole lease would wait too long.
IN_PROGRESS_RETRY_AFTER = 1


@dataclass
class Claim:
    record: IdempotencyRecord
    fresh: bool  # this call owns the key now (run it)
    replay: bool = False  # completed before: send the stored bytes
    awaiting: bool = False  # gated, decided by its approval


def retention() -> timedelta:
    return timedelta(hours=settings.IDEMPOTENCY_RETENTION_HOURS)


def idempotency_claim(
    *,
    tenant: Tenant,
    principal_key: str,
    key: str,
    fingerprint: str,
    tool_key: str,
    lease: timedelta,
    make_approval: Callable[[], Approval] | None = None,
) -> Claim:
    """Claim `key` for this call, or say what the earlier call with it left behind."""
    for _attempt in range(3):
        record = _insert(tenant, principal_key, key, fingerprint, tool_key, lease, make_approval)
        if record is not None:
            return Claim(record, fresh=True, awaiting=make_approval is not None)
        record = IdempotencyRecord.objects.filter(tenant=tenant, principal_key=principal_key, key=key).first()
        if record is None:
            continue  # removed between our insert and our read: try again
        if record.expires_at <= timezone.now() and record.status != IdempotencyRecord.Status.RUNNING:
            # Past retention but not yet cleaned up: it no longer binds the key.
            IdempotencyRecord.objects.filter(id=record.id, expires_at=record.expires_at).delete()
            continue
        return _existing(record, fingerprint, lease)
    raise IdempotencyInProgress(retry_after=IN_PROGRESS_RETRY_AFTER)


def _insert(tenant, principal_key, key, fingerprint, tool_key, lease, make_approval):
    now = timezone.now()
    gated = make_approval is not None
    try:
        with transaction.atomic():
            approval = make_approval() if gated else None
            return IdempotencyRecord.objects.create(
                tenant=tenant,
                principal_key=principal_key,
                key=key,
                fingerprint=fingerprint,
                tool_key=tool_key,
                status=IdempotencyRecord.Status.AWAITING_APPROVAL
                if gated
                else IdempotencyRecord.Status.RUNNING,
                approval=approval,
                lease_until=None if gated else now + lease + LEASE_MARGIN,
                expires_at=(approval.expires_at if gated else now) + retention(),
            )
    except IntegrityError:
        return None


def _existing(record: IdempotencyRecord, fingerprint: str, lease: timedelta) -> Claim:
    if record.fingerprint != fingerprint:
        raise IdempotencyKeyReused(
            "This idempotency key was already used for a different request.",
            details={"tool_key": record.tool_key},
        )
    if record.status == IdempotencyRecord.Status.COMPLETED:
        return Claim(record, fresh=False, replay=True)
    if record.status == IdempotencyRecord.Status.AWAITING_APPROVAL:
        return Claim(record, fresh=False, awaiting=True)
    now = timezone.now()
    if record.lease_until is not None and record.lease_until > now:
        raise IdempotencyInProgress(retry_after=IN_PROGRESS_RETRY_AFTER)
    # The call that held the key died mid-flight (its lease ran out): the first repeat takes it over.
    if _move(record, IdempotencyRecord.Status.RUNNING, lease, lease_until=record.lease_until):
        return Claim(record, fresh=True)
    raise IdempotencyInProgress(retry_after=IN_PROGRESS_RETRY_AFTER)


def idempotency_start_approved(*, record: IdempotencyRecord, lease: timedelta) -> bool:
    """Move an approved call from awaiting to running; exactly one repeat wins."""
    return _move(record, IdempotencyRecord.Status.AWAITING_APPROVAL, lease)


def _move(record: IdempotencyRecord, from_status: str, lease: timedelta, **match) -> bool:
    lease_until = timezone.now() + lease + LEASE_MARGIN
    moved = IdempotencyRecord.objects.filter(id=record.id, status=from_status, **match).update(
        status=IdempotencyRecord.Status.RUNNING, lease_until=lease_until
    )
    if moved:
        record.status, record.lease_until = IdempotencyRecord.Status.RUNNING, lease_until
    return bool(moved)


def idempotency_complete(*, record: IdempotencyRecord, status: int, body: bytes) -> None:
    now = timezone.now()
    IdempotencyRecord.objects.filter(id=record.id, status=IdempotencyRecord.Status.RUNNING).update(
        status=IdempotencyRecord.Status.COMPLETED,
        response_status=status,
        response_body=body,
        completed_at=now,
        lease_until=None,
        expires_at=now + retention(),
    )


def idempotency_release(*, record: IdempotencyRecord) -> None:
    """Nothing happened at the vendor (it rate-limited us): the key may be used again. A gated call
    keeps its approval and goes back to waiting for its repeat."""
    running = IdempotencyRecord.objects.filter(id=record.id, status=IdempotencyRecord.Status.RUNNING)
    if record.approval_id is not None:
        running.update(status=IdempotencyRecord.Status.AWAITING_APPROVAL, lease_until=None)
    else:
        running.delete()
