from __future__ import annotations

from datetime import datetime
from functools import cache
from uuid import UUID

from django.db import connection
from django.utils import timezone

from adminops.audit import CLAIMED, AuditHeadPeek, audit_record, audit_record_with
from config.api.errors import InvalidParameter
from config.api.ids import prefixed_uuid
from config.db import all_columns, fetch_instances
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
    change: tuple[str, list, AuditHeadPeek] | None = None,
) -> tuple | None:
    """Audit a change of `credential` in the caller's transaction; or, with `change` (SQL that
    requires `CLAIMED`, its parameters, and the head read with the caller's read), make the change
    and its entry in one statement (`audit_record_with`) and return the change's row (None: it
    matched nothing and nothing was written)."""
    entry = {
        "tenant": credential.tenant,
        "action": action,
        "category": "credential",
        "actor": actor,
        "resource": {"type": "credential", "id": credential.public_id, "name": credential.integration_id},
        "details": {"integrationId": credential.integration_id, "authType": credential.auth_type}
        | (details or {}),
        "status": status,
        "request_id": request_id,
    }
    if change is None:
        audit_record(**entry)
        return None
    sql, params, head = change
    return audit_record_with(sql, params, head=head, **entry)


def credential_count_read(credential: Credential, now: datetime) -> tuple[str, list]:
    """The decrypted GET's change, for `credential_audit(change=...)`: count one access of the
    credential if it is still live, returning its new count."""
    return _count_read_sql(), [
        Credential._meta.get_field("last_accessed_at").get_db_prep_save(now, connection),
        Credential._meta.pk.get_db_prep_value(credential.pk, connection),
        Credential.Status.DELETED.value,
    ]


@cache
def _count_read_sql() -> str:
    quote, meta = connection.ops.quote_name, Credential._meta
    column = {
        name: quote(meta.get_field(name).column) for name in ("last_accessed_at", "access_count", "status")
    }
    return (
        f"UPDATE {quote(meta.db_table)} SET {column['last_accessed_at']} = %s, "  # noqa: S608  # nosec B608: names from the model and placeholders only
        f"{column['access_count']} = {column['access_count']} + 1 "
        f"WHERE {quote(meta.pk.column)} = %s AND {column['status']} <> %s AND {CLAIMED} "
        f"RETURNING {column['access_count']}"
    )


def credential_count_access(*, tenant, integration_id: str, usable: bool) -> Credential | None:
    """Count one access of the integration's credential and read the row back in the same statement
    (`UPDATE ... RETURNING`, which Django's `update()` cannot do; its ORM also cost more to compile
    this than the database took to run it). `usable`: only an active credential that has not
    expired (a connector's use); otherwise any live one (the decrypted GET). None when no row
    matches: the caller's full path then says why."""
    now = timezone.now()
    params = [
        Credential._meta.get_field("last_accessed_at").get_db_prep_save(now, connection),
        Credential._meta.get_field("tenant").get_db_prep_save(tenant.pk, connection),
        integration_id,
    ]
    if usable:
        params += [Credential.Status.ACTIVE.value, params[0]]
    else:
        params += [Credential.Status.DELETED.value]
    credential = next(iter(fetch_instances(Credential, _count_access_sql(usable), params)), None)
    if credential is not None:
        credential.tenant = tenant  # the caller's tenant object: no extra query
    return credential


@cache
def _count_access_sql(usable: bool) -> str:
    quote, meta = connection.ops.quote_name, Credential._meta
    column = {
        name: quote(meta.get_field(name).column)
        for name in ("last_accessed_at", "access_count", "tenant", "integration_id", "status", "expires_at")
    }
    if usable:
        which = f"{column['status']} = %s AND ({column['expires_at']} IS NULL OR {column['expires_at']} > %s)"
    else:
        which = f"{column['status']} <> %s"
    return (
        f"UPDATE {quote(meta.db_table)} SET {column['last_accessed_at']} = %s, "  # noqa: S608  # nosec B608: names from the model and placeholders only
        f"{column['access_count']} = {column['access_count']} + 1 "
        f"WHERE {column['tenant']} = %s AND {column['integration_id']} = %s AND {which} "
        f"RETURNING {all_columns(Credential)}"
    )
