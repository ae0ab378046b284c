from __future__ import annotations

from uuid import UUID

from adminops.audit import audit_record
from config.api.errors import InvalidParameter
from config.api.ids import prefixed_uuid
from vault.errors import CredentialAlreadyDeleted, CredentialNotFound  # noqa: F401  (re-exported)
from vault.models import Credential


def person(actor: dict) -> dict:
    """The `{id, name, email}` person object of the contract, from an audit actor."""
    return {
        "id": str(actor.get("id") or ""),
        "name": actor.get("name") or "",
        "email": actor.get("email") or "",
    }


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
) -> None:
    audit_record(
        tenant=credential.tenant,
        action=action,
        category="credential",
        actor=actor,
        resource={"type": "credential", "id": credential.public_id, "name": credential.integration_id},
        details={"integrationId": credential.integration_id, "authType": credential.auth_type}
        | (details or {}),
        status=status,
        request_id=request_id,
    )
