"""The periodic credential jobs: expiry flags (with early refresh) and the rotation-due check."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from core.api.timestamps import iso_ms
from core.audit import system_actor
from vault.models import Credential
from vault.services.common import credential_audit
from vault.services.refresh import REFRESH_MARGIN, credential_refresh, refresh_due

_OAUTH = (Credential.AuthType.OAUTH2_BEARER, Credential.AuthType.OAUTH2_CLIENT_CREDENTIALS)


def credentials_refresh_expiring(*, now=None) -> int:
    """Refresh refreshable credentials whose token expires within the margin (or has expired)."""
    now = now or timezone.now()
    actor = system_actor("tokenExpiry")
    candidates = (
        Credential.objects.filter(
            status=Credential.Status.ACTIVE, auth_type__in=_OAUTH, refresh_failed_at=None
        )
        .exclude(token_endpoint="")
        .filter(expires_at__lte=now + REFRESH_MARGIN)
        .select_related("tenant")
    )
    refreshed = 0
    for credential in candidates.iterator():
        if refresh_due(credential, now=now):
            _, error = credential_refresh(credential=credential, actor=actor)
            refreshed += error is None
    return refreshed


def credentials_flag_expired(*, now=None) -> int:
    """Set `isExpired` on live credentials past `expiresAt`; status unchanged, nothing deleted."""
    now = now or timezone.now()
    actor = system_actor("tokenExpiry")
    due = Credential.objects.live().filter(is_expired=False, expires_at__lte=now).select_related("tenant")
    flagged = 0
    for credential in due.iterator():
        with transaction.atomic():
            if Credential.objects.filter(id=credential.id, is_expired=False, expires_at__lte=now).update(
                is_expired=True
            ):
                credential_audit(
                    credential,
                    action="CREDENTIAL_EXPIRED",
                    actor=actor,
                    details={"expiresAt": iso_ms(credential.expires_at)},
                )
                flagged += 1
    return flagged


def credentials_mark_rotation_due(*, now=None) -> int:
    """Credentials whose `metadata.rotationDays` have passed since their last rotation (or creation)
    are marked `rotationDue` once and audited (CREDENTIAL_ROTATION_DUE); a rotation clears the mark."""
    now = now or timezone.now()
    actor = system_actor("credentialRotationCheck")
    rows = Credential.objects.filter(status=Credential.Status.ACTIVE, rotation_due_at=None).filter(
        metadata__has_key="rotationDays"
    )
    marked = 0
    for credential in rows.select_related("tenant").iterator():
        days = credential.metadata.get("rotationDays")
        if isinstance(days, bool) or not isinstance(days, int | float) or days <= 0:
            continue
        since = credential.last_rotated_at or credential.created_at
        if since + timedelta(days=days) > now:
            continue
        with transaction.atomic():
            if Credential.objects.filter(id=credential.id, rotation_due_at=None).update(rotation_due_at=now):
                credential_audit(
                    credential, action="CREDENTIAL_ROTATION_DUE", actor=actor, details={"rotationDays": days}
                )
                marked += 1
    return marked
