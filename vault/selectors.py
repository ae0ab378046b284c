"""Reads. Every selector starts from the tenant's rows; another tenant's credential answers exactly
like a missing one (no existence oracle)."""

from __future__ import annotations

from functools import cache
from uuid import UUID

from django.db import connection

from core.api.errors import ResourceNotFound
from core.models import Tenant
from vault.caches import IN_USE
from vault.errors import CredentialNotFound
from vault.models import LIVE, Credential, CredentialTally, DekRotation

# What a credential record shows (`vault.apis.outputs.credential_record`): every column but the
# ciphertexts, which a list page never needs.
RECORD_FIELDS = (
    "id",
    "integration_id",
    "name",
    "description",
    "auth_type",
    "scopes",
    "status",
    "token_endpoint",
    "authorization_endpoint",
    "metadata",
    "expires_at",
    "is_expired",
    "created_at",
    "created_by",
    "updated_at",
    "updated_by",
    "last_accessed_at",
    "access_count",
    "last_refreshed_at",
    "refresh_failed_at",
    "refresh_error",
    "last_rotated_at",
    "rotation_due_at",
)


def _attach(credential: Credential | None, tenant: Tenant) -> Credential | None:
    if credential is not None:
        credential.tenant = tenant  # the caller's tenant object: no join, no extra query
    return credential


def credential_get(*, tenant: Tenant, credential_id: UUID) -> Credential:
    """By id, tombstones included."""
    credential = _attach(_one(Credential.objects.for_tenant(tenant, id=credential_id)), tenant)
    if credential is None:
        raise CredentialNotFound("Credential not found.", details={"credentialId": f"cred-{credential_id}"})
    return credential


def credential_live_get(*, tenant: Tenant, integration_id: str) -> Credential | None:
    """The live credential of an integration (at most one, by a unique constraint), or None."""
    return _attach(_one(Credential.objects.for_tenant(tenant, LIVE, integration_id=integration_id)), tenant)


def _one(rows) -> Credential | None:
    """The row of a lookup that matches at most one (`get()`, which unlike `first()` does not sort
    by the primary key first), or None."""
    try:
        return rows.get()
    except Credential.DoesNotExist:
        return None


# What a connector's use of a credential reads (`vault.services.use.credential_for_use`): its
# identity, state, expiry and sealed secrets. A refresh re-reads the whole row under its lock.
USE_FIELDS = (
    "id",
    "tenant_id",
    "integration_id",
    "auth_type",
    "scopes",
    "status",
    "token_endpoint",
    "metadata",
    "access_token",
    "refresh_token",
    "secrets",
    "dek_version",
    "expires_at",
    "refresh_failed_at",
)


def credential_for_use_get(*, tenant: Tenant, integration_id: str) -> Credential:
    """The live credential of an integration as a connector uses it, through the use cache
    (vault.caches)."""

    def load() -> Credential | None:  # only on a miss: building the query costs as much as a hit
        rows = Credential.objects.for_tenant(tenant, LIVE, integration_id=integration_id)
        return _one(rows.only(*USE_FIELDS))

    found = IN_USE.lookup(f"{tenant.pk}:{integration_id}", load, scope=str(tenant.pk))
    if found is None:
        raise _not_found(integration_id, None)
    return _attach(found, tenant)


def credential_get_by_integration(
    *, tenant: Tenant, integration_id: str, credential_id: UUID | None = None, locked: bool = False
) -> Credential:
    """The live credential of an integration, or with `credential_id` that credential of the
    integration (a tombstone too). `locked`: the row stays locked until the caller's transaction
    ends (`credential_locked`)."""
    if locked:
        found = credential_locked(tenant=tenant, integration_id=integration_id, credential_id=credential_id)
    elif credential_id is None:
        found = _one(Credential.objects.for_tenant(tenant, LIVE, integration_id=integration_id))
    else:
        found = _one(Credential.objects.for_tenant(tenant, integration_id=integration_id, id=credential_id))
    credential = _attach(found, tenant)
    if credential is None:
        raise _not_found(integration_id, credential_id)
    return credential


def credential_locked(
    *, tenant: Tenant, integration_id: str, credential_id: UUID | None
) -> Credential | None:
    """The row `credential_get_by_integration` finds, locked until the caller's transaction ends,
    read by one statement written out from the model (`_locked_select`) through the ORM's `raw()`,
    which loads it as a query would. The decrypted GET reads its row so: building the ORM's query of
    a 30-column row cost more CPU than the rest of the read's statements together
    (docs/performance.md); tests/vault/test_locked_read.py holds its rows to the ORM's."""
    sql = _locked_select(connection.vendor, by_id=credential_id is not None)
    params = [_prep("tenant", tenant.pk), _prep("integration_id", integration_id)]
    params.append(_prep("id", credential_id) if credential_id is not None else Credential.Status.DELETED)
    rows = list(Credential.objects.raw(sql, params))
    return rows[0] if rows else None


@cache
def _locked_select(vendor: str, *, by_id: bool) -> str:
    """SELECT every column of one credential by (tenant, integration id) and either its id or LIVE
    (`status` is never NULL), FOR UPDATE where the database has row locks (SQLite serialises
    writers itself; Django leaves the clause out there too)."""
    quote = connection.ops.quote_name
    meta = Credential._meta
    columns = ", ".join(quote(field.column) for field in meta.concrete_fields)
    last = f"{quote(meta.pk.column)} = %s" if by_id else f"NOT ({quote('status')} = %s)"
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    # Names from the model's metadata, quoted; every value is a parameter.
    return (
        f"SELECT {columns} FROM {quote(meta.db_table)} WHERE {quote('tenant_id')} = %s "  # noqa: S608  # nosec B608
        f"AND {quote('integration_id')} = %s AND {last}{lock}"
    )


def _prep(name: str, value):
    """A parameter as the ORM would send it for that column (a UUID is 32 hex digits on SQLite)."""
    return Credential._meta.get_field(name).get_db_prep_value(value, connection)


def _not_found(integration_id: str, credential_id: UUID | None) -> CredentialNotFound:
    details = {"integrationId": integration_id}
    if credential_id is not None:
        details["credentialId"] = f"cred-{credential_id}"
    return CredentialNotFound(f"No credential found for integration '{integration_id}'.", details=details)


def credential_page(
    *,
    tenant: Tenant,
    offset: int,
    limit: int,
    auth_type: str | None = None,
    status: str | None = None,
    is_expired: bool | None = None,
) -> tuple[list, int]:
    """A page of the tenant's credentials, newest first, as rows of `RECORD_FIELDS` with the
    model's attribute names (never the ciphertexts; tombstones only when asked for with
    `status=deleted`), and the exact number of credentials it pages through."""
    filters = {
        name: value
        for name, value in (("status", status), ("auth_type", auth_type), ("is_expired", is_expired))
        if value is not None
    }
    rows = Credential.objects.for_tenant(tenant, **filters)
    if status is None:
        rows = rows.filter(LIVE)
    ordered = rows.order_by("-created_at", "id").values_list(*RECORD_FIELDS, named=True)
    page = list(ordered[offset : offset + limit])
    if len(page) < limit and (page or not offset):
        total = offset + len(page)  # the last page: it says how many there are
    elif filters:
        total = rows.count()
    else:
        total = credential_live_count(tenant=tenant)
    return page, total


def credential_live_count(*, tenant: Tenant) -> int:
    """How many live (not deleted) credentials the tenant has, exactly: the sum of its tally rows
    (`CredentialTally`), which the database keeps in the same transaction as every credential
    write, instead of a COUNT over all the tenant's rows."""
    return sum(CredentialTally.objects.filter(tenant_id=tenant.pk).values_list("live", flat=True))


def credential_counts(*, tenant: Tenant) -> dict[str, int]:
    """The tenant's live credentials (`total`), and those of them active and expired."""
    live = Credential.objects.for_tenant(tenant, LIVE)
    return {
        "total": credential_live_count(tenant=tenant),
        "active": live.filter(status=Credential.Status.ACTIVE).count(),
        "expired": live.filter(is_expired=True).count(),
    }


def dek_rotation_get(*, rotation_id: UUID) -> DekRotation:
    rotation = DekRotation.objects.select_related("tenant").filter(id=rotation_id).first()
    if rotation is None:
        raise ResourceNotFound("DEK rotation not found.", code="DEK_ROTATION_NOT_FOUND")
    return rotation
