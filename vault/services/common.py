from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.db.models import F

from adminops.audit import audit_record
from config.api.errors import InvalidParameter
from config.api.ids import prefixed_uuid
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
) -> None:
    """Audit a change of `credential` in the caller's transaction (after the change: the row is
    locked before the audit chain's head, the order every writer keeps)."""
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


def credential_count(credential_pk, at: datetime) -> int:
    """Count one access of a credential at `at`, in the caller's transaction if there is one."""
    counted = Credential.objects.filter(pk=credential_pk)
    return counted.update(last_accessed_at=at, access_count=F("access_count") + 1)


# ---- TEMPORARY: what the tool hub's one-statement audit still imports; removed with it.

from functools import cache  # noqa: E402

from django.db import connection  # noqa: E402

from adminops.audit import CHANGED  # noqa: E402


def live_by_integration(tenant_id, integration_id: str) -> tuple[str, list]:
    quote, meta = connection.ops.quote_name, Credential._meta
    where = " AND ".join(
        f"{quote(meta.get_field(name).column)} {op} %s"
        for name, op in (("tenant", "="), ("integration_id", "="), ("status", "<>"))
    )
    params = [
        Credential._meta.get_field("tenant").get_db_prep_value(tenant_id, connection),
        integration_id,
        Credential.Status.DELETED.value,
    ]
    return where, params


def credential_lock(tenant_id, integration_id: str) -> tuple[str, list]:
    """The integration's live credential locked, for `audit_record_with(lock=...)`: taken before the
    audit head, as a transaction that changes a credential and audits it takes them. A store waits
    here for a delete or rotation of the integration's credential in progress, instead of waiting
    for it inside the unique index while holding a head."""
    where, params = live_by_integration(tenant_id, integration_id)
    table = connection.ops.quote_name(Credential._meta.db_table)
    return f"SELECT 1 FROM {table} WHERE {where} FOR UPDATE", params  # noqa: S608  # nosec B608: names from the model and placeholders only


def credential_count_with(credential_pk, at: datetime) -> tuple[str, list]:
    """A connector's use of a credential (at `at`), counted by its caller's audited change: for
    `audit_record_with(also=...)`."""
    return _count_sql(CHANGED), _count_params(credential_pk, at)


def _count_params(credential_pk, at: datetime) -> list:
    return [
        Credential._meta.get_field("last_accessed_at").get_db_prep_save(at, connection),
        Credential._meta.pk.get_db_prep_value(credential_pk, connection),
    ]


@cache
def _count_sql(requires: str) -> str:
    """Count one access of the credential with a given primary key, if `requires` holds too."""
    quote, meta = connection.ops.quote_name, Credential._meta
    column = {name: quote(meta.get_field(name).column) for name in ("last_accessed_at", "access_count")}
    requires = f" AND {requires}" if requires else ""
    return (
        f"UPDATE {quote(meta.db_table)} SET {column['last_accessed_at']} = %s, "  # noqa: S608  # nosec B608: names from the model, placeholders and the audit writer's conditions only
        f"{column['access_count']} = {column['access_count']} + 1 "
        f"WHERE {quote(meta.pk.column)} = %s{requires} RETURNING {column['access_count']}"
    )
