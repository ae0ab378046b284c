from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.db.models import F

from core.api.errors import InvalidParameter
from core.api.ids import prefixed_uuid
from core.audit import audit_record
from core.models import AuditEntry
from vault.errors import CredentialAlreadyDeleted, CredentialNotFound  # noqa: F401  (re-exported)
from vault.models import Credential


def parse_credential_id(raw: str) -> UUID:
    """`cred-<uuid>` or a bare UUID (DESIGN 13.7); anything else is 400."""
    parsed = prefixed_uuid(raw, "cred-")
    if parsed is None:
        raise InvalidParameter(
            "Invalid credentialId.", details={"credentialId": "credentialId must be a UUID (cred-<uuid>)."}
        )
    return parsed


def credential_audit(
    credential: Credential,
    *,
    action: str,
    actor: dict,
    details: dict | None = None,
    status: str = "success",
    request_id: str | None = None,
) -> AuditEntry:
    """Audit a change of `credential` in the caller's transaction (after the change: the row is
    locked before the audit chain's head, the order every writer keeps)."""
    return audit_record(
        tenant=credential.tenant,
        action=action,
        category="credentials",
        actor=actor,
        resource={"type": "credential", "id": credential.public_id, "name": credential.integration_id},
        details={"integrationId": credential.integration_id, "authType": credential.auth_type}
        | (details or {}),
        status=status,
        request_id=request_id,
    )


def credential_access_count(credential_pk, at: datetime) -> int:
    """Count one access of a credential at `at`, in the caller's transaction if there is one."""
    counted = Credential.objects.filter(pk=credential_pk)
    return counted.update(last_accessed_at=at, access_count=F("access_count") + 1)
