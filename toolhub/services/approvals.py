"""Approvals (DESIGN section 9): created by a gated call, decided once by compare-and-set, audited.

An approval is bound to the call's idempotency key and fingerprint, so only a repeat of exactly that
call runs after approval, and only once.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.api.errors import Forbidden, value_error
from core.api.timestamps import iso_ms
from core.audit import audit_record, system_actor
from core.models import Tenant
from core.principals import Principal
from toolhub.errors import ApprovalDecided, ApprovalExpired, ApprovalRejected, ApprovalRequired
from toolhub.models import Approval, Connection
from toolhub.registry import Tool


def approval_ttl() -> timedelta:
    return timedelta(hours=settings.APPROVAL_TTL_HOURS)


def approval_create(
    *,
    tenant: Tenant,
    tool: Tool,
    connection: Connection,
    idempotency_key: str,
    fingerprint: str,
    input_redacted: dict,
    principal: Principal,
    actor: dict,
    request_id: str,
    channel: str = "rest",
) -> Approval:
    """Called inside the transaction that claims the idempotency key."""
    approval = Approval.objects.create(
        tenant=tenant,
        tool_key=tool.key,
        risk_level=tool.risk_level,
        connection=connection,
        idempotency_key=idempotency_key,
        fingerprint=fingerprint,
        input_redacted=input_redacted,
        requester=actor,
        requester_key=principal.rate_key,
        requester_owner_id=_owner_of(principal),
        channel=channel,
        expires_at=timezone.now() + approval_ttl(),
        request_id=request_id,
    )
    audit_record(
        tenant=tenant,
        action="APPROVAL_REQUESTED",
        category="tools",
        actor=actor,
        resource=_resource(approval),
        details={
            "toolKey": tool.key,
            "riskLevel": tool.risk_level,
            "connectionId": connection.public_id,
            "channel": channel,
        },
        request_id=request_id,
    )
    return approval


def _owner_of(principal: Principal) -> str:
    """The person behind a machine credential (the user an OAuth token acts for, or who created the
    API key), so that person cannot approve the calls of their own credential either."""
    if principal.user_id:
        return principal.user_id
    owner = getattr(principal.obj, "created_by_id", None)
    return str(owner) if owner else ""


def approval_gate(*, approval: Approval | None) -> None:
    """A repeat of a gated call: raise unless its approval has been granted."""
    if approval is None:
        raise ApprovalExpired("The approval of this call no longer exists.")
    approval = approval_expire_if_due(approval=approval)
    if approval.status == Approval.Status.PENDING:
        raise ApprovalRequired(approval, waiting=True)
    if approval.status == Approval.Status.REJECTED:
        raise ApprovalRejected(
            "This call was rejected by an approver.",
            details={"approval_id": approval.public_id, "reason": approval.reason},
        )
    if approval.status == Approval.Status.EXPIRED:
        raise ApprovalExpired(
            "The approval of this call expired before anyone decided.",
            details={"approval_id": approval.public_id, "expired_at": _iso(approval.expires_at)},
        )


def approval_expire_if_due(*, approval: Approval) -> Approval:
    if approval.status == Approval.Status.PENDING and approval.expires_at <= timezone.now():
        _expire(approval.id, approval.tenant)
        approval.refresh_from_db()
    return approval


def approvals_expire_due() -> int:
    """The clean-up job: every pending approval past its expiry becomes `expired` (audited)."""
    due = Approval.objects.filter(status=Approval.Status.PENDING, expires_at__lte=timezone.now())
    return sum(
        _expire(approval_id, tenant)
        for approval_id, tenant in ((a.id, a.tenant) for a in due.select_related("tenant")[:1000])
    )


def _expire(approval_id, tenant: Tenant) -> int:
    with transaction.atomic():
        moved = Approval.objects.filter(
            id=approval_id, status=Approval.Status.PENDING, expires_at__lte=timezone.now()
        ).update(status=Approval.Status.EXPIRED, decided_at=timezone.now())
        if moved:
            audit_record(
                tenant=tenant,
                action="APPROVAL_EXPIRED",
                category="tools",
                actor=system_actor("approvals"),
                resource={"type": "approval", "id": f"apr_{approval_id.hex}", "name": ""},
            )
    return moved


def approval_decide(
    *,
    tenant: Tenant,
    approval: Approval,
    approve: bool,
    reason: str,
    decider: Principal,
    actor: dict,
    request_id: str = "",
) -> Approval:
    """Approve or reject a pending approval, once (compare-and-set on its status), audited in the
    same transaction. The requester (or the owner of the requesting key) may never decide."""
    if not approve and not reason.strip():
        raise value_error("reason", "A reason is required to reject.")
    if _is_requester(approval, decider):
        raise Forbidden("The requester of a call cannot decide its approval.")
    approval_expire_if_due(approval=approval)
    status = Approval.Status.APPROVED if approve else Approval.Status.REJECTED
    now = timezone.now()
    with transaction.atomic():
        moved = Approval.objects.filter(
            id=approval.id, tenant=tenant, status=Approval.Status.PENDING, expires_at__gt=now
        ).update(status=status, reason=reason.strip(), decided_by=actor, decided_at=now)
        if not moved:
            approval.refresh_from_db()
            raise ApprovalDecided(
                f"This approval is already {approval.status}.",
                details={"approval_id": approval.public_id, "status": approval.status},
            )
        audit_record(
            tenant=tenant,
            action="APPROVAL_DECIDED",
            category="tools",
            actor=actor,
            resource=_resource(approval),
            details={"decision": status, "reason": reason.strip(), "toolKey": approval.tool_key},
            request_id=request_id,
        )
    approval.refresh_from_db()
    return approval


def _is_requester(approval: Approval, decider: Principal) -> bool:
    if approval.requester_key == decider.rate_key:
        return True
    return decider.is_user and approval.requester_owner_id == decider.id


def approval_mark_executed(*, approval_id) -> None:
    Approval.objects.filter(id=approval_id, executed_at__isnull=True).update(executed_at=timezone.now())


def _resource(approval: Approval) -> dict:
    return {"type": "approval", "id": approval.public_id, "name": approval.tool_key}


def _iso(value) -> str | None:
    return iso_ms(value)
