"""Idempotency records (DESIGN section 9), in the database: a unique constraint decides who claims a
key, compare-and-set updates move it on, and no transaction is held open across the vendor call.

States: `running` (a call is in flight; `lease_until` says when it must have died) ->
`completed` (the response bytes are kept and replayed). A gated call starts in
`awaiting_approval` and moves to `running` once, when its approval has been granted.

`upstream_started_at` is set (compare-and-set, by the lease holder) right before the vendor call.
A repeat that takes over a call whose lease ran out re-runs it only if the vendor never saw it or
the tool only reads; otherwise the vendor may have acted on it, so the key ends with a final
`OUTCOME_UNKNOWN` error instead of a second vendor call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.models import Tenant
from toolhub.errors import IdempotencyInProgress, IdempotencyKeyReused
from toolhub.models import Approval, IdempotencyRecord

# Most calls take well under a second; a client told to wait the whole lease would wait too long.
IN_PROGRESS_RETRY_AFTER = 1


@dataclass
class Claim:
    record: IdempotencyRecord
    fresh: bool  # this call owns the key now (run it)
    replay: bool = False  # completed before: send the stored bytes
    awaiting: bool = False  # gated, decided by its approval
    interrupted: bool = False  # taken over after the vendor got the first attempt: do not call again


def lease_margin() -> timedelta:
    """How long beyond its vendor timeouts a running call is given before a repeat may take it over
    (`TOOLHUB_LEASE_MARGIN_SECONDS`)."""
    return timedelta(seconds=settings.TOOLHUB_LEASE_MARGIN_SECONDS)


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
    rerunnable: bool = False,
) -> Claim:
    """Claim `key` for this call, or say what the earlier call with it left behind. `rerunnable`:
    the tool only reads, so a call interrupted at the vendor may simply run again."""
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
        return _existing(record, fingerprint, lease, rerunnable)
    raise IdempotencyInProgress(retry_after=IN_PROGRESS_RETRY_AFTER)


def _insert(tenant, principal_key, key, fingerprint, tool_key, lease, make_approval):
    now = timezone.now()
    gated = make_approval is not None
    # The approval and its key are one unit; inside a caller's transaction a duplicate key must not
    # break it (atomic() is a savepoint there).
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
                lease_until=None if gated else now + lease + lease_margin(),
                expires_at=(approval.expires_at if gated else now) + retention(),
            )
    except IntegrityError:
        return None


def _existing(record: IdempotencyRecord, fingerprint: str, lease: timedelta, rerunnable: bool) -> Claim:
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
    # If the vendor had already received it and the tool changes things, the taker only closes the
    # key with OUTCOME_UNKNOWN (Claim.interrupted); otherwise it runs the call itself.
    interrupted = record.upstream_started_at is not None and not rerunnable
    # Both read values are matched, so a mark made by the old holder after our read wins over us.
    taken = _move(
        record,
        IdempotencyRecord.Status.RUNNING,
        lease,
        lease_until=record.lease_until,
        upstream_started_at=record.upstream_started_at,
    )
    if taken:
        return Claim(record, fresh=True, interrupted=interrupted)
    raise IdempotencyInProgress(retry_after=IN_PROGRESS_RETRY_AFTER)


def idempotency_start_approved(*, record: IdempotencyRecord, lease: timedelta) -> bool:
    """Move an approved call from awaiting to running; exactly one repeat wins."""
    return _move(record, IdempotencyRecord.Status.AWAITING_APPROVAL, lease)


def _move(record: IdempotencyRecord, from_status: str, lease: timedelta, **match) -> bool:
    """Compare-and-set into `running` under a new lease. `upstream_started_at` is kept: the taker
    reads it to decide (`_existing`), and marks its own vendor call afresh."""
    lease_until = timezone.now() + lease + lease_margin()
    moved = IdempotencyRecord.objects.filter(id=record.id, status=from_status, **match).update(
        status=IdempotencyRecord.Status.RUNNING, lease_until=lease_until
    )
    if moved:
        record.status, record.lease_until = IdempotencyRecord.Status.RUNNING, lease_until
    return bool(moved)


def idempotency_upstream_start(*, record: IdempotencyRecord) -> bool:
    """Note, right before the vendor call, that the vendor is about to receive it. Compare-and-set on
    the holder's lease: False if the lease ran out and a repeat took the key over (then this process
    must not call the vendor)."""
    now = timezone.now()
    marked = IdempotencyRecord.objects.filter(
        id=record.id, status=IdempotencyRecord.Status.RUNNING, lease_until=record.lease_until
    ).update(upstream_started_at=now)
    if marked:
        record.upstream_started_at = now
    return bool(marked)


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
    keeps its approval and goes back to waiting for its repeat. Only while this call still holds the
    lease: a key a repeat has taken over is left to it."""
    running = IdempotencyRecord.objects.filter(
        id=record.id, status=IdempotencyRecord.Status.RUNNING, lease_until=record.lease_until
    )
    if record.approval_id is not None:
        running.update(
            status=IdempotencyRecord.Status.AWAITING_APPROVAL, lease_until=None, upstream_started_at=None
        )
    else:
        running.delete()
