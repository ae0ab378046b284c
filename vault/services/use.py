"""Credentials for connectors (the tool hub): `credential_for_use` is how other apps get a usable
secret. It refreshes an expiring OAuth token first (the same row lock as the decrypted GET) and
refuses credentials that cannot be used.

Decision: a connector use counts as an access (`lastAccessedAt`, `accessCount`) but writes no
`CREDENTIAL_SECRET_READ` entry; the caller audits the operation it performs (e.g. TOOL_EXECUTED),
and refreshes and refresh failures are audited here as always. A caller that writes anyway once the
use is over (the tool hub's execution record) counts the access with that write instead
(`count=False`, then the credential named by `CredentialForUse.uncounted`: toolhub migration 0007).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

from django.utils import timezone

from core.api.errors import Conflict
from core.audit import system_actor
from core.models import Tenant
from vault.models import Credential
from vault.selectors import credential_for_use_get
from vault.services.common import credential_access_count
from vault.services.refresh import credential_refresh, refresh_due
from vault.services.secrets import reveal

UNREAD = object()  # `credential_for_use(live=...)` not given


class CredentialUnusable(Conflict):
    code = "CREDENTIAL_UNUSABLE"


@dataclass(frozen=True)
class CredentialForUse:
    credential_id: str
    integration_id: str
    auth_type: str
    scopes: list[str]
    metadata: dict
    token_endpoint: str
    expires_at: datetime | None
    access_token: str | None = field(default=None, repr=False)
    refresh_token: str | None = field(default=None, repr=False)
    secrets: dict[str, str] = field(default_factory=dict, repr=False)
    # The primary key of a credential whose access the caller has still to count (`count=False`).
    uncounted: UUID | None = None


def credential_for_use(
    *,
    tenant: Tenant,
    integration_id: str,
    actor: dict | None = None,
    request_id: str | None = None,
    count: bool = True,
    live: Credential | object | None = UNREAD,
) -> CredentialForUse:
    """The integration's live credential, decrypted, its access counted (with `count=False`, the
    caller counts it from `uncounted`). `live`: that credential (or None) as the caller has just
    read it with a read of its own."""
    actor = actor or system_actor("connector")
    credential = live
    if not isinstance(credential, Credential):  # not read yet, or none found: this says why
        credential = credential_for_use_get(tenant=tenant, integration_id=integration_id)
    if credential.status != Credential.Status.ACTIVE:
        raise CredentialUnusable(
            f"The credential of integration '{integration_id}' is {credential.status}.",
            code="CREDENTIAL_INACTIVE",
            details={"integrationId": integration_id, "status": credential.status},
        )
    if refresh_due(credential):
        credential, _ = credential_refresh(credential=credential, actor=actor, request_id=request_id)
    _refuse_expired(credential, integration_id)
    revealed = reveal(credential)
    if count:
        credential_access_count(credential.pk, timezone.now())
    return _for_use(credential, revealed, uncounted=None if count else credential.pk)


def _for_use(credential: Credential, revealed, uncounted) -> CredentialForUse:
    return CredentialForUse(
        credential_id=credential.public_id,
        integration_id=credential.integration_id,
        auth_type=credential.auth_type,
        scopes=list(credential.scopes),
        metadata=dict(credential.metadata),
        token_endpoint=credential.token_endpoint,
        expires_at=credential.expires_at,
        access_token=revealed.access_token,
        refresh_token=revealed.refresh_token,
        secrets=dict(revealed.secrets or {}),
        uncounted=uncounted,
    )


def _refuse_expired(credential: Credential, integration_id: str) -> None:
    if credential.expires_at is None or credential.expires_at > timezone.now():
        return
    reason = "its refresh was refused" if credential.refresh_failed_at else "it cannot be refreshed"
    raise CredentialUnusable(
        f"The credential of integration '{integration_id}' has expired and {reason}; rotate it.",
        code="CREDENTIAL_EXPIRED",
        details={"integrationId": integration_id},
    )
