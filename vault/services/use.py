"""Credentials for connectors (the tool hub): `credential_for_use` is how other apps get a usable
secret. It refreshes an expiring OAuth token first (the same row lock as the decrypted GET) and
refuses credentials that cannot be used.

Decision: a connector use counts as an access (`lastAccessedAt`, `accessCount`) but writes no
`CREDENTIAL_SECRET_READ` entry; the caller audits the operation it performs (e.g. TOOL_EXECUTED),
and refreshes and refresh failures are audited here as always.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cache

from django.db import connections, router
from django.db.models import F
from django.utils import timezone

from adminops.audit import system_actor
from adminops.models import Tenant
from config.api.errors import Conflict
from vault.models import Credential
from vault.selectors import credential_get_by_integration
from vault.services.refresh import credential_refresh, refresh_due
from vault.services.secrets import reveal


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


def credential_for_use(
    *, tenant: Tenant, integration_id: str, actor: dict | None = None, request_id: str | None = None
) -> CredentialForUse:
    actor = actor or system_actor("connector")
    credential = _counted_if_usable(tenant, integration_id)
    if credential is None:
        credential = _usable_or_refused(tenant, integration_id, actor=actor, request_id=request_id)
        Credential.objects.filter(id=credential.id).update(
            last_accessed_at=timezone.now(), access_count=F("access_count") + 1
        )
    elif refresh_due(credential):
        credential, _ = credential_refresh(credential=credential, actor=actor, request_id=request_id)
        _refuse_expired(credential, integration_id)
    revealed = reveal(credential)
    return _for_use(credential, revealed)


def _counted_if_usable(tenant: Tenant, integration_id: str) -> Credential | None:
    """The usual case in one statement: count the access of the integration's active, unexpired
    credential and read it back (`UPDATE ... RETURNING`, which Django's `update()` cannot do).
    None when there is no such row; the slow path then says why, or refreshes an expired token."""
    db = router.db_for_write(Credential)
    connection = connections[db]
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    tenant_id = Credential._meta.get_field("tenant").target_field.get_db_prep_value(tenant.id, connection)
    params = [now, tenant_id, integration_id, Credential.Status.ACTIVE.value, now]
    found = list(Credential.objects.db_manager(db).raw(_counted_sql(db), params))
    if not found:
        return None
    found[0].tenant = tenant  # the caller's tenant object: no extra query
    return found[0]


@cache
def _counted_sql(db: str) -> str:
    """Written once per database instead of compiled by the ORM on every call (the ORM's compiling
    of this statement cost more than the database's running it). The WHERE is
    `for_tenant().filter(integration_id=..., status=active)` and not expired; the (tenant,
    integration) index serves it."""
    quote = connections[db].ops.quote_name
    columns = ", ".join(quote(f.column) for f in Credential._meta.concrete_fields)
    counter, expires = quote("access_count"), quote("expires_at")
    where = f"{quote('tenant_id')} = %s AND {quote('integration_id')} = %s AND {quote('status')} = %s"
    return (
        f"UPDATE {quote(Credential._meta.db_table)} "  # noqa: S608  # nosec B608: quoted names and placeholders only
        f"SET {quote('last_accessed_at')} = %s, {counter} = {counter} + 1 "
        f"WHERE {where} AND ({expires} IS NULL OR {expires} > %s) RETURNING {columns}"
    )


def _usable_or_refused(tenant: Tenant, integration_id: str, *, actor: dict, request_id) -> Credential:
    credential = credential_get_by_integration(tenant=tenant, integration_id=integration_id)
    if credential.status != Credential.Status.ACTIVE:
        raise CredentialUnusable(
            f"The credential of integration '{integration_id}' is {credential.status}.",
            code="CREDENTIAL_INACTIVE",
            details={"integrationId": integration_id, "status": credential.status},
        )
    if refresh_due(credential):
        credential, _ = credential_refresh(credential=credential, actor=actor, request_id=request_id)
    _refuse_expired(credential, integration_id)
    return credential


def _for_use(credential: Credential, revealed) -> CredentialForUse:
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
