"""Reads. Every selector starts from the tenant's rows; another tenant's credential answers exactly
like a missing one (no existence oracle)."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import NamedTuple
from uuid import UUID

from django.db import connection

from adminops.models import Tenant
from config.db import all_columns, fetch_instances
from vault.errors import CredentialNotFound
from vault.models import LIVE, Credential, CredentialTally, DekRotation


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
        params = [Credential._meta.get_field("tenant").get_db_prep_value(tenant.pk, connection)]
        rows = fetch_instances(
            Credential, _live_by_integration_sql(), [*params, integration_id, Credential.Status.DELETED.value]
        )
        found = rows[0] if rows else None
    else:
        found = _only(Credential.objects.for_tenant(tenant, integration_id=integration_id, id=credential_id))
    credential = _attach(found, tenant)
    if credential is None:
        raise _integration_not_found(integration_id, credential_id)
    return credential


@cache
def _live_by_integration_sql() -> str:
    """`for_tenant(tenant, LIVE, integration_id=...)` written once instead of compiled per call
    (Django's compiling of a 30-column SELECT cost more than the database's answer); at most one
    row matches (a unique constraint on the live credential of an integration)."""
    quote, meta = connection.ops.quote_name, Credential._meta
    where = " AND ".join(
        f"{quote(meta.get_field(name).column)} {op} %s"
        for name, op in (("tenant", "="), ("integration_id", "="), ("status", "<>"))
    )
    return f"SELECT {all_columns(Credential)} FROM {quote(meta.db_table)} WHERE {where}"  # noqa: S608  # nosec B608: names from the model


def credential_list(
    *,
    tenant: Tenant,
    auth_type: str | None = None,
    status: str | None = None,
    is_expired: bool | None = None,
):
    """Newest first, as rows of `SUMMARY_FIELDS` (never the ciphertexts); tombstones only when
    asked for with `status=deleted`."""
    filters: dict = {"status": status} if status else {}
    if auth_type:
        filters["auth_type"] = auth_type
    if is_expired is not None:
        filters["is_expired"] = is_expired
    rows = Credential.objects.for_tenant(tenant, *([] if status else [LIVE]), **filters)
    return rows.order_by("-created_at", "id")


def credential_page(
    *,
    tenant: Tenant,
    offset: int,
    limit: int,
    auth_type: str | None = None,
    status: str | None = None,
    is_expired: bool | None = None,
) -> tuple[list[CredentialSummary], int]:
    """A page of `credential_list` and the exact number of credentials it pages through: unfiltered
    (every live credential, the common case) the tenant's tally, with a filter a COUNT."""
    rows = credential_list(tenant=tenant, auth_type=auth_type, status=status, is_expired=is_expired)
    if auth_type is None and status is None and is_expired is None:
        total = credential_live_count(tenant=tenant)
    else:
        total = rows.count()
    found = rows.values_list(*SUMMARY_FIELDS)[offset : offset + limit] if offset < total else []
    return [CredentialSummary._make(row) for row in found], total


def credential_live_count(*, tenant: Tenant) -> int:
    """How many live (not deleted) credentials the tenant has, exactly: the sum of its tally rows
    (`CredentialTally`), which the database keeps in the same transaction as every credential write.
    A COUNT over the tenant's 10,000 rows cost PostgreSQL more than all the rest of a list request."""
    return sum(CredentialTally.objects.filter(tenant_id=tenant.id).values_list("live", flat=True))


def dek_rotation_get(*, rotation_id: UUID) -> DekRotation:
    from config.api.errors import ResourceNotFound

    rotation = DekRotation.objects.select_related("tenant").filter(id=rotation_id).first()
    if rotation is None:
        raise ResourceNotFound("DEK rotation not found.", code="DEK_ROTATION_NOT_FOUND")
    return rotation
