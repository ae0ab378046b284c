"""Reads. Every selector starts from the tenant's rows; another tenant's credential answers exactly
like a missing one (no existence oracle)."""

from __future__ import annotations

from uuid import UUID

from adminops.models import Tenant
from vault.errors import CredentialNotFound
from vault.models import Credential, DekRotation


def _only(rows) -> Credential | None:
    """The one row of a query that matches at most one (a primary key, or the one live credential of
    an integration): no ORDER BY as `.first()` would add, which costs more than the row itself."""
    found = list(rows[:1])
    return found[0] if found else None


def _attach(credential: Credential | None, tenant: Tenant) -> Credential | None:
    if credential is not None:
        credential.tenant = tenant  # the caller's tenant object: no join, no extra query
    return credential


def credential_get(*, tenant: Tenant, credential_id: UUID) -> Credential:
    """By id, tombstones included."""
    credential = _attach(_only(Credential.objects.for_tenant(tenant).filter(id=credential_id)), tenant)
    if credential is None:
        raise CredentialNotFound("Credential not found.", details={"credentialId": f"cred-{credential_id}"})
    return credential


def credential_get_by_integration(
    *, tenant: Tenant, integration_id: str, credential_id: UUID | None = None
) -> Credential:
    """The live credential of an integration, or with `credential_id` that credential of the
    integration (a tombstone too)."""
    rows = Credential.objects.for_tenant(tenant).filter(integration_id=integration_id)
    rows = rows.filter(id=credential_id) if credential_id is not None else rows.live()
    credential = _attach(_only(rows), tenant)
    if credential is None:
        details = {"integrationId": integration_id}
        if credential_id is not None:
            details["credentialId"] = f"cred-{credential_id}"
        raise CredentialNotFound(f"No credential found for integration '{integration_id}'.", details=details)
    return credential


def credential_list(
    *,
    tenant: Tenant,
    auth_type: str | None = None,
    status: str | None = None,
    is_expired: bool | None = None,
):
    """Newest first; tombstones only when asked for with `status=deleted`."""
    rows = Credential.objects.for_tenant(tenant)
    rows = rows.filter(status=status) if status else rows.live()
    if auth_type:
        rows = rows.filter(auth_type=auth_type)
    if is_expired is not None:
        rows = rows.filter(is_expired=is_expired)
    # The secret columns are never needed for a listing: do not even fetch the ciphertext.
    return rows.defer("access_token", "refresh_token", "secrets").order_by("-created_at", "id")


def dek_rotation_get(*, rotation_id: UUID) -> DekRotation:
    from config.api.errors import ResourceNotFound

    rotation = DekRotation.objects.select_related("tenant").filter(id=rotation_id).first()
    if rotation is None:
        raise ResourceNotFound("DEK rotation not found.", code="DEK_ROTATION_NOT_FOUND")
    return rotation
