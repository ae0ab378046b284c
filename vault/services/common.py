from __future__ import annotations

from datetime import datetime
from functools import cache
from uuid import UUID

from django.db import connection
from django.utils import timezone

from adminops.audit import CHANGED, CLAIMED, AuditHeadPeek, audit_record, audit_record_with
from config.api.errors import InvalidParameter
from config.api.ids import prefixed_uuid
from config.db import all_columns, fetch_instances, prepared_cursor
from vault.errors import CredentialAlreadyDeleted, CredentialNotFound  # noqa: F401  (re-exported)
from vault.models import Credential
from vault.selectors import live_by_integration


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
    return audit_record_with(
        sql, params, head=head, lock=credential_lock(credential.tenant_id, credential.integration_id), **entry
    )


def credential_count_read(credential: Credential, now: datetime) -> tuple[str, list]:
    """The decrypted GET's change, for `credential_audit(change=...)`: count one access of the
    credential if it is still live, returning its new count."""
    status = connection.ops.quote_name(Credential._meta.get_field("status").column)
    return _count_sql(f"{status} <> %s AND {CLAIMED}"), [
        *_count_params(credential.pk, now),
        Credential.Status.DELETED.value,
    ]


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


def credential_count(credential_pk, at: datetime) -> None:
    """Count one access of a credential now, in the caller's transaction if there is one."""
    with prepared_cursor() as cursor:
        cursor.execute(_count_sql(""), _count_params(credential_pk, at))


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
