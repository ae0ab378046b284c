"""Reads. Every selector starts from the tenant's rows; another tenant's credential answers exactly
like a missing one (no existence oracle)."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import NamedTuple
from uuid import UUID

from django.db import connection

from adminops.audit import AuditHeadPeek
from adminops.models import Tenant
from config.db import all_columns, fetch_instances, fetch_instances_with, fetch_rows, prepared_cursor
from vault.errors import CredentialNotFound
from vault.models import Credential, CredentialTally, DekRotation


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
    credential = _attach(_only(Credential.objects.for_tenant(tenant, id=credential_id)), tenant)
    if credential is None:
        raise CredentialNotFound("Credential not found.", details={"credentialId": f"cred-{credential_id}"})
    return credential


class CredentialSummary(NamedTuple):
    """The columns a credential record shows (`vault.apis.outputs.credential_record`), read as a
    tuple: a list page needs neither the ciphertexts nor model instances (50 of them cost more than
    the page query itself). Attribute names are the model's, so the record builder takes either.
    (For one row, the details, a model instance is the cheaper read: Django resolves 23 named
    columns more slowly than it builds one instance.)"""

    id: UUID
    integration_id: str
    name: str
    description: str
    auth_type: str
    scopes: list
    status: str
    token_endpoint: str
    authorization_endpoint: str
    metadata: dict
    expires_at: datetime | None
    is_expired: bool
    created_at: datetime
    created_by: dict
    updated_at: datetime | None
    updated_by: dict | None
    last_accessed_at: datetime | None
    access_count: int
    last_refreshed_at: datetime | None
    refresh_failed_at: datetime | None
    refresh_error: dict | None
    last_rotated_at: datetime | None
    rotation_due_at: datetime | None

    @property
    def public_id(self) -> str:
        return f"cred-{self.id}"


SUMMARY_FIELDS = CredentialSummary._fields


def _integration_not_found(integration_id: str, credential_id: UUID | None) -> CredentialNotFound:
    details = {"integrationId": integration_id}
    if credential_id is not None:
        details["credentialId"] = f"cred-{credential_id}"
    return CredentialNotFound(f"No credential found for integration '{integration_id}'.", details=details)


def credential_get_by_integration(
    *, tenant: Tenant, integration_id: str, credential_id: UUID | None = None
) -> Credential:
    """The live credential of an integration, or with `credential_id` that credential of the
    integration (a tombstone too)."""
    if credential_id is None:  # the details, every lookup by integration: a statement prepared once
        credential = credential_live_get(tenant=tenant, integration_id=integration_id)
    else:
        found = _only(Credential.objects.for_tenant(tenant, integration_id=integration_id, id=credential_id))
        credential = _attach(found, tenant)
    if credential is None:
        raise _integration_not_found(integration_id, credential_id)
    return credential


def credential_live_get(*, tenant: Tenant, integration_id: str) -> Credential | None:
    """The live credential of an integration, or None: one prepared statement."""
    rows = fetch_instances(
        Credential, _live_by_integration_sql(), live_by_integration(tenant.pk, integration_id)[1]
    )
    return _attach(rows[0], tenant) if rows else None


def credential_live_with_head(
    *, tenant: Tenant, integration_id: str, head: AuditHeadPeek
) -> tuple[Credential | None, AuditHeadPeek]:
    """The live credential of an integration (None if there is none), read in one statement with
    the audit head `head` names, for a change audited in one statement (`audit_record_with`)."""
    columns, head_params = head.columns()
    params = [*head_params, *live_by_integration(tenant.pk, integration_id)[1]]
    rows = fetch_instances_with(Credential, _live_by_integration_sql(columns), params)
    if not rows:
        return None, head
    credential, peeked = rows[0]
    return _attach(credential, tenant), head.read(*peeked)


def live_by_integration(tenant_id, integration_id: str) -> tuple[str, list]:
    """The WHERE that finds an integration's live credential (at most one row, by a unique
    constraint), and its parameters."""
    params = [
        Credential._meta.get_field("tenant").get_db_prep_value(tenant_id, connection),
        integration_id,
        Credential.Status.DELETED.value,
    ]
    return _live_where(), params


@cache
def _live_where() -> str:
    quote, meta = connection.ops.quote_name, Credential._meta
    return " AND ".join(
        f"{quote(meta.get_field(name).column)} {op} %s"
        for name, op in (("tenant", "="), ("integration_id", "="), ("status", "<>"))
    )


@cache
def _live_by_integration_sql(more_columns: str = "") -> str:
    """`for_tenant(tenant, LIVE, integration_id=...)` written once instead of compiled per call
    (Django's compiling of a 30-column SELECT cost more than the database's answer); at most one
    row matches (a unique constraint on the live credential of an integration). `more_columns`
    (with their placeholders first in the parameters) come after the model's."""
    quote, meta = connection.ops.quote_name, Credential._meta
    columns = f"{all_columns(Credential)}, {more_columns}" if more_columns else all_columns(Credential)
    return f"SELECT {columns} FROM {quote(meta.db_table)} WHERE {_live_where()}"  # noqa: S608  # nosec B608: names from the model and the caller's columns


def credential_page(
    *,
    tenant: Tenant,
    offset: int,
    limit: int,
    auth_type: str | None = None,
    status: str | None = None,
    is_expired: bool | None = None,
) -> tuple[list[CredentialSummary], int]:
    """A page of the tenant's credentials, newest first, as rows of `SUMMARY_FIELDS` (never the
    ciphertexts; tombstones only when asked for with `status=deleted`), and the exact number of
    credentials it pages through: unfiltered (every live credential, the common case) the tenant's
    tally, with a filter a COUNT. One statement reads both, in one snapshot; only a page past the
    end asks for the total alone."""
    filters = {
        name: value
        for name, value in (("status", status), ("auth_type", auth_type), ("is_expired", is_expired))
        if value is not None
    }
    page_sql, total_sql = _page_sql(tuple(filters))
    live_only = [] if "status" in filters else [Credential.Status.DELETED.value]
    where = [_tenant_param(tenant), *live_only, *filters.values()]
    counted = where if filters else where[:1]
    rows = fetch_rows(Credential, SUMMARY_FIELDS, page_sql, [*counted, *where, limit, offset], skip=1)
    if rows:
        total = rows[0][0]
    elif offset:
        total = _scalar(total_sql, counted)
    else:
        total = 0
    return [CredentialSummary._make(row[1:]) for row in rows], int(total)


def credential_live_count(*, tenant: Tenant) -> int:
    """How many live (not deleted) credentials the tenant has, exactly: the sum of its tally rows
    (`CredentialTally`), which the database keeps in the same transaction as every credential write.
    A COUNT over the tenant's 10,000 rows cost PostgreSQL more than all the rest of a list request."""
    return int(_scalar(_page_sql(())[1], [_tenant_param(tenant)]))


def _tenant_param(tenant: Tenant):
    return Credential._meta.get_field("tenant").get_db_prep_value(tenant.pk, connection)


def _scalar(sql: str, params: list):
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


@cache
def _page_sql(filtered: tuple[str, ...]) -> tuple[str, str]:
    """(a page with its total in the first column, the total alone) for the credentials matching
    the fields `filtered` (each `= %s`); without a `status` filter, every live one. Written once per
    set of filters instead of compiled per call: compiling the page's 23 columns and the total cost
    Django more than PostgreSQL's answer."""
    quote, meta = connection.ops.quote_name, Credential._meta

    def column(name: str, model=Credential) -> str:
        return quote(model._meta.get_field(name).column)

    table, tally = quote(meta.db_table), quote(CredentialTally._meta.db_table)
    where = " AND ".join(
        [
            f"{column('tenant')} = %s",
            *([] if "status" in filtered else [f"{column('status')} <> %s"]),
            *(f"{column(name)} = %s" for name in filtered),
        ]
    )
    if filtered:  # a COUNT of the same rows
        counted, source = "COUNT(*)", f"{table} WHERE {where}"
    else:  # the tally's rows of the tenant
        live, owner = column("live", CredentialTally), column("tenant", CredentialTally)
        counted, source = f"COALESCE(SUM({live}), 0)", f"{tally} WHERE {owner} = %s"
    total = f"SELECT {counted} FROM {source}"  # noqa: S608  # nosec B608: names from the models
    columns = ", ".join(column(name) for name in SUMMARY_FIELDS)
    order = f"{column('created_at')} DESC, {column('id')} ASC"
    page = f"SELECT ({total}), {columns} FROM {table} WHERE {where} ORDER BY {order} LIMIT %s OFFSET %s"  # noqa: S608  # nosec B608: names from the model
    return page, total


def dek_rotation_get(*, rotation_id: UUID) -> DekRotation:
    from config.api.errors import ResourceNotFound

    rotation = DekRotation.objects.select_related("tenant").filter(id=rotation_id).first()
    if rotation is None:
        raise ResourceNotFound("DEK rotation not found.", code="DEK_ROTATION_NOT_FOUND")
    return rotation
