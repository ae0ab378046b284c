"""Writes and secret reads of credentials. Each change writes its audit entry in its transaction."""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from core.api.errors import ApiError, Conflict
from core.api.timestamps import iso_ms
from core.models import Tenant
from core.outbound import guard_field
from core.people import person
from vault import usage
from vault.errors import CredentialAlreadyDeleted, CredentialNotFound
from vault.models import Credential
from vault.selectors import credential_get, credential_get_by_integration
from vault.services.common import credential_audit
from vault.services.refresh import (
    credential_refresh,
    grant_impossible,
    refresh_due,
    refresh_error_of,
    refreshable,
)
from vault.services.secrets import Revealed, reveal, seal_into


def credential_store(
    *,
    tenant: Tenant,
    actor: dict,
    integration_id: str,
    name: str,
    auth_type: str,
    description: str = "",
    scopes: list[str] | None = None,
    token_endpoint: str = "",
    authorization_endpoint: str = "",
    metadata: dict | None = None,
    expires_in: int | None = None,
    access_token: str | None = None,
    refresh_token: str | None = None,
    secrets: dict[str, str] | None = None,
    request_id: str | None = None,
) -> Credential:
    guard_field("tokenEndpoint", token_endpoint)
    guard_field("authorizationEndpoint", authorization_endpoint)
    now = timezone.now()
    credential = Credential(
        id=uuid.uuid4(),
        tenant=tenant,
        integration_id=integration_id,
        name=name,
        description=description,
        auth_type=auth_type,
        scopes=list(scopes or []),
        token_endpoint=token_endpoint,
        authorization_endpoint=authorization_endpoint,
        metadata=metadata or {},
        expires_at=now + timedelta(seconds=expires_in) if expires_in else None,
        created_at=now,
        created_by=person(actor),
    )
    seal_into(credential, Revealed(access_token, refresh_token, secrets))
    try:
        with transaction.atomic():
            credential.save(force_insert=True)
            credential_audit(
                credential,
                action="CREDENTIAL_CREATED",
                actor=actor,
                details={"credentialName": name, "scopes": credential.scopes},
                request_id=request_id,
            )
    except IntegrityError:
        raise Conflict(
            f"A credential for integration '{integration_id}' already exists.",
            code="CREDENTIAL_ALREADY_EXISTS",
            details={"integrationId": integration_id},
        ) from None
    return credential


_SCALARS = {"credentialName": "name", "description": "description", "status": "status"}


def credential_update(
    *, tenant: Tenant, actor: dict, integration_id: str, credential_id, changes: dict, request_id=None
) -> tuple[Credential, dict]:
    """Metadata only (tokens change through rotation). `changes` holds the API's field names;
    returns the credential and the `changes` report ({from, to}, or {added, removed} for scopes)."""
    with transaction.atomic():
        credential = _locked(tenant, integration_id, credential_id)
        report = _apply_changes(credential, changes)
        if report:
            credential.updated_at = timezone.now()
            credential.updated_by = person(actor)
            credential.save()
            credential_audit(
                credential,
                action="CREDENTIAL_UPDATED",
                actor=actor,
                details={"changedFields": sorted(report)} | _audit_changes(report),
                request_id=request_id,
            )
    return credential, report


def _locked(tenant, integration_id, credential_id) -> Credential:
    found = credential_get_by_integration(
        tenant=tenant, integration_id=integration_id, credential_id=credential_id
    )
    credential = Credential.objects.select_for_update().get(id=found.id)
    credential.tenant = tenant
    if credential.status == Credential.Status.DELETED:
        raise CredentialAlreadyDeleted(
            "The credential has been deleted.",
            details={
                "deletedAt": iso_ms(credential.deleted_at),
                "deletedBy": (credential.deleted_by or {}).get("name", ""),
            },
        )
    return credential


def _apply_changes(credential: Credential, changes: dict) -> dict:
    report: dict = {}
    for api_name, attr in _SCALARS.items():
        if api_name in changes and changes[api_name] != getattr(credential, attr):
            report[api_name] = {"from": getattr(credential, attr), "to": changes[api_name]}
            setattr(credential, attr, changes[api_name])
    if "scopes" in changes and changes["scopes"] != credential.scopes:
        old, new = credential.scopes, changes["scopes"]
        report["scopes"] = {
            "added": [s for s in new if s not in old],
            "removed": [s for s in old if s not in new],
        }
        credential.scopes = list(new)
    if "metadata" in changes and changes["metadata"] != credential.metadata:
        report["metadata"] = {"from": credential.metadata, "to": changes["metadata"]}
        credential.metadata = changes["metadata"]
    return report


def _audit_changes(report: dict) -> dict:
    # Metadata is free-form (its keys may look like anything): the audit names it, never copies it.
    return {key: value for key, value in report.items() if key != "metadata"}


def credential_delete(
    *, tenant: Tenant, actor: dict, integration_id: str, credential_id, request_id=None
) -> tuple[Credential, int]:
    """Tombstone: the secrets are destroyed, the metadata stays for the audit trail."""
    with transaction.atomic():
        credential = _locked(tenant, integration_id, credential_id)
        affected = usage.integrations_affected(credential)
        credential.status = Credential.Status.DELETED
        credential.access_token = credential.refresh_token = credential.secrets = None
        credential.deleted_at = timezone.now()
        credential.deleted_by = person(actor)
        credential.save()
        credential_audit(
            credential,
            action="CREDENTIAL_DELETED",
            actor=actor,
            details={"integrationsAffected": affected},
            request_id=request_id,
        )
    return credential, affected


def credential_read_secrets(
    *, tenant: Tenant, actor: dict, integration_id: str, credential_id=None, request_id=None
) -> tuple[Credential, Revealed, dict | None]:
    """The decrypted GET: one transaction that locks the row, reads it and writes one thing, the
    audit entry, from which the database counts the access (vault migration 0005). When a refresh
    is due, that transaction ends without a write, the refresh runs in its own, and the read
    follows."""
    refreshed, refresh_error = False, None
    while True:
        with transaction.atomic():
            credential = _readable(tenant, integration_id, credential_id)
            if refreshed or not refresh_due(credential):
                revealed = reveal(credential)
                entry = credential_audit(
                    credential, action="CREDENTIAL_SECRET_READ", actor=actor, request_id=request_id
                )
                break
        credential, refresh_error = credential_refresh(
            credential=credential, actor=actor, request_id=request_id
        )
        refreshed = True
    credential.last_accessed_at, credential.access_count = entry.timestamp, credential.access_count + 1
    return credential, revealed, refresh_error or refresh_error_of(credential)


def _readable(tenant: Tenant, integration_id: str, credential_id) -> Credential:
    """The credential whose secrets are asked for, locked (the row before an audit head, the order
    every writer keeps); 404 for a tombstone."""
    credential = credential_get_by_integration(
        tenant=tenant, integration_id=integration_id, credential_id=credential_id, locked=True
    )
    if credential.status == Credential.Status.DELETED:
        # A tombstone has no secrets left to read: the contract's decrypted GET answers 404 for
        # "no credential" and has no 409.
        raise CredentialNotFound(
            f"The credential of integration '{integration_id}' has been deleted; "
            "its secrets no longer exist.",
            details={
                "integrationId": integration_id,
                "credentialId": credential.public_id,
                "deletedAt": iso_ms(credential.deleted_at),
            },
        )
    return credential


class CredentialNotRefreshable(ApiError):
    status_code = 422
    code = "CREDENTIAL_NOT_REFRESHABLE"


class CredentialRefreshFailed(ApiError):
    status_code = 502
    code = "CREDENTIAL_REFRESH_FAILED"


def credential_rotate(
    *,
    tenant: Tenant,
    actor: dict,
    credential_id,
    access_token: str | None = None,
    refresh_token: str | None = None,
    secrets: dict | None = None,
    expires_in: int | None = None,
    request_id=None,
) -> tuple[Credential, str, list[str]]:
    """Replace the given values, or with nothing given refresh now. Returns (credential, method,
    fields changed)."""
    given = {
        "accessToken": access_token,
        "refreshToken": refresh_token,
        "secrets": secrets,
        "expiresIn": expires_in,
    }
    fields = [name for name, value in given.items() if value is not None]
    credential = credential_get(tenant=tenant, credential_id=credential_id)
    if credential.status == Credential.Status.DELETED:
        raise CredentialAlreadyDeleted(
            "The credential has been deleted.", details={"deletedAt": iso_ms(credential.deleted_at)}
        )
    if not fields:
        return _rotate_by_refresh(credential, actor=actor, request_id=request_id)
    with transaction.atomic():
        credential = Credential.objects.select_for_update().get(id=credential.id)
        credential.tenant = tenant
        _replace_values(credential, access_token, refresh_token, secrets, expires_in, actor=actor)
        credential_audit(
            credential,
            action="CREDENTIAL_ROTATED",
            actor=actor,
            details={"rotatedFields": fields},
            request_id=request_id,
        )
    return credential, "replaced", fields


def _rotate_by_refresh(credential: Credential, *, actor, request_id) -> tuple[Credential, str, list[str]]:
    if not refreshable(credential) or grant_impossible(credential, reveal(credential)):
        raise CredentialNotRefreshable(
            "Nothing to rotate: give accessToken, refreshToken, secrets or expiresIn. This credential "
            "cannot be refreshed (it needs an OAuth auth type, a tokenEndpoint and a refresh token or "
            "client secret).",
            details={"body": "Give the values to replace."},
        )
    credential, error = credential_refresh(
        credential=credential, actor=actor, force=True, request_id=request_id
    )
    if error is not None:
        raise CredentialRefreshFailed(error["message"], details={"reason": error["code"]})
    return credential, "refreshed", ["accessToken"]


def _replace_values(credential, access_token, refresh_token, secrets, expires_in, *, actor) -> None:
    now = timezone.now()
    current = reveal(credential)
    current.access_token = access_token if access_token is not None else current.access_token
    current.refresh_token = refresh_token if refresh_token is not None else current.refresh_token
    current.secrets = secrets if secrets is not None else current.secrets
    seal_into(credential, current)
    if expires_in is not None:
        credential.expires_at = now + timedelta(seconds=expires_in)
    elif access_token is not None:
        credential.expires_at = None  # the old expiry described the old token
    credential.is_expired = credential.expires_at is not None and credential.expires_at <= now
    credential.refresh_failed_at = credential.refresh_error = credential.rotation_due_at = None
    credential.last_rotated_at = credential.updated_at = now
    credential.updated_by = person(actor)
    credential.save()
