"""Clean-up run by the `cleanupExpiredSessions` job: idempotency records past retention and pending
approvals past their expiry."""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone

from toolhub.models import IdempotencyRecord
from toolhub.services.approvals import approvals_expire_due


def toolhub_cleanup() -> int:
    """Returns the number of records removed or approvals expired."""
    expired = approvals_expire_due()
    now = timezone.now()
    # A running call keeps its record until its lease has passed, whatever the retention says.
    stale = IdempotencyRecord.objects.filter(expires_at__lte=now).filter(
        ~Q(status=IdempotencyRecord.Status.RUNNING) | Q(lease_until__lte=now)
    )
    removed, _ = stale.delete()
    return expired + removed
