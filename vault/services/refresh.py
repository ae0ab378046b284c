"""Automatic OAuth 2.0 refresh (DESIGN section 6).

A refresh takes the credential's row lock and re-reads the row, so of many concurrent readers of an
expired token exactly one calls the token endpoint; the others find the fresh token once the lock
is theirs. The lock is held across the upstream call on purpose: that is what makes it one call.
A refusal by the provider (`invalid_grant`, 401, ...) flags the credential (`refreshFailedAt` and a
reason) and stops automatic refreshes until the tokens are rotated; a transient failure (5xx,
timeout) is audited but not flagged. Never deleted, never raised to a reader.
"""

from __future__ import annotations

import logging
from datetime import timedelta

import requests
from django.db import transaction
from django.utils import timezone

from core.api.timestamps import iso_ms
from core.outbound import OutboundRefused, outbound_session
from vault.models import Credential
from vault.services.common import credential_audit
from vault.services.secrets import Revealed, reveal, seal_into

logger = logging.getLogger(__name__)

REFRESH_MARGIN = timedelta(minutes=5)
TOKEN_TIMEOUT = (5.0, 15.0)
_OAUTH_TYPES = (Credential.AuthType.OAUTH2_BEARER, Credential.AuthType.OAUTH2_CLIENT_CREDENTIALS)


class RefreshFailure(Exception):
    def __init__(self, code: str, message: str, permanent: bool) -> None:
        super().__init__(message)
        # REFRESH_REJECTED, REFRESH_NOT_POSSIBLE (both flagged) or REFRESH_UNAVAILABLE (transient)
        self.code = code
        self.message = message
        self.permanent = permanent


def refreshable(credential: Credential) -> bool:
    """A refresh is asked for: an OAuth credential with a `tokenEndpoint` (and a refresh token for
    `oauth2_bearer`). Whether the grant can be made is known once the secrets are revealed
    (`grant_impossible`): a client-credentials credential may be stored without its client secret."""
    if credential.status == Credential.Status.DELETED or not credential.token_endpoint:
        return False
    if credential.auth_type == Credential.AuthType.OAUTH2_BEARER:
        return credential.refresh_token is not None
    return credential.auth_type == Credential.AuthType.OAUTH2_CLIENT_CREDENTIALS


def grant_impossible(credential: Credential, revealed: Revealed) -> str | None:
    """Why the token grant cannot be made with what the credential holds, or None."""
    if _grant_type(credential) != "client_credentials":
        return None
    secrets = revealed.secrets or {}
    if secrets.get("clientSecret") and (secrets.get("clientId") or credential.metadata.get("clientId")):
        return None
    return (
        "A client-credentials grant needs secrets.clientSecret and a clientId (in secrets or "
        "metadata); rotate the credential with them."
    )


def refresh_due(credential: Credential, *, now=None) -> bool:
    """An automatic refresh is due: refreshable, not flagged, and the access token is missing (client
    credentials) or expires within the margin."""
    if credential.refresh_failed_at is not None or not refreshable(credential):
        return False
    if credential.access_token is None:
        return credential.auth_type == Credential.AuthType.OAUTH2_CLIENT_CREDENTIALS
    now = now or timezone.now()
    return credential.expires_at is not None and credential.expires_at <= now + REFRESH_MARGIN


def refresh_error_of(credential: Credential) -> dict | None:
    """The flag of an earlier refused refresh, in the response's `refreshError` shape."""
    if credential.refresh_failed_at is None:
        return None
    error = credential.refresh_error or {}
    return {
        "code": error.get("code", "REFRESH_REJECTED"),
        "message": error.get("message", ""),
        "at": iso_ms(credential.refresh_failed_at),
    }


def credential_refresh(
    *, credential: Credential, actor: dict, force: bool = False, request_id: str | None = None
) -> tuple[Credential, dict | None]:
    """Refresh under the row lock. Returns the re-read credential and a `refreshError` (or None).
    Without `force`, a credential that another caller refreshed meanwhile is returned as it is."""
    tenant = credential.tenant
    with transaction.atomic():
        locked = Credential.objects.select_for_update().get(id=credential.id, tenant=tenant)
        locked.tenant = tenant
        if not (refresh_due(locked) or (force and refreshable(locked))):
            return locked, None
        now = timezone.now()
        revealed = reveal(locked)
        try:
            tokens = _token_request(locked, revealed)
        except RefreshFailure as failure:
            return locked, _record_failure(locked, failure, now=now, actor=actor, request_id=request_id)
        _store_tokens(locked, revealed, tokens, now=now)
        credential_audit(
            locked,
            action="CREDENTIAL_REFRESHED",
            actor=actor,
            details={"grantType": _grant_type(locked), "expiresAt": iso_ms(locked.expires_at)},
            request_id=request_id,
        )
    return locked, None


def _grant_type(credential: Credential) -> str:
    if credential.auth_type == Credential.AuthType.OAUTH2_CLIENT_CREDENTIALS:
        return "client_credentials"
    return "refresh_token"


def _token_form(credential: Credential, revealed: Revealed) -> dict[str, str]:
    secrets = revealed.secrets or {}
    client_id = secrets.get("clientId") or str(credential.metadata.get("clientId") or "")
    form = {"grant_type": _grant_type(credential)}
    if form["grant_type"] == "refresh_token":
        form["refresh_token"] = revealed.refresh_token or ""
    if client_id:
        form["client_id"] = client_id
    if secrets.get("clientSecret"):
        form["client_secret"] = secrets["clientSecret"]
    if credential.scopes:
        form["scope"] = " ".join(credential.scopes)
    return form


def _token_request(credential: Credential, revealed: Revealed) -> dict:
    # A client-credentials grant may be repeated safely; a refresh-token grant may rotate the
    # refresh token, so it is sent once.
    impossible = grant_impossible(credential, revealed)
    if impossible:
        raise RefreshFailure("REFRESH_NOT_POSSIBLE", impossible, True)
    idempotent = _grant_type(credential) == "client_credentials"
    try:
        with outbound_session(timeout=TOKEN_TIMEOUT, retries=2) as session:
            response = session.post(
                credential.token_endpoint,
                data=_token_form(credential, revealed),
                headers={"Accept": "application/json"},
                idempotent=idempotent,
            )
    except OutboundRefused as exc:
        raise RefreshFailure(
            "REFRESH_REJECTED", f"The token endpoint was refused: {exc.reason}", True
        ) from None
    except requests.RequestException as exc:
        raise RefreshFailure(
            "REFRESH_UNAVAILABLE", f"The token endpoint could not be reached ({type(exc).__name__}).", False
        ) from None
    return _token_reply(response)


def _token_reply(response) -> dict:
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        body = {}
    if response.status_code == 200 and isinstance(body.get("access_token"), str) and body["access_token"]:
        return body
    if response.status_code >= 500 or response.status_code == 429:
        raise RefreshFailure(
            "REFRESH_UNAVAILABLE", f"The token endpoint answered {response.status_code}.", False
        )
    reason = str(body.get("error") or f"HTTP {response.status_code}")[:64]
    description = str(body.get("error_description") or "")[:200]
    message = f"The token endpoint refused the refresh: {reason}" + (
        f" ({description})" if description else ""
    )
    raise RefreshFailure("REFRESH_REJECTED", message, True)


def _store_tokens(credential: Credential, revealed: Revealed, tokens: dict, *, now) -> None:
    revealed.access_token = tokens["access_token"]
    if isinstance(tokens.get("refresh_token"), str) and tokens["refresh_token"]:
        revealed.refresh_token = tokens["refresh_token"]
    seal_into(credential, revealed)
    expires_in = tokens.get("expires_in")
    try:
        seconds = int(expires_in) if expires_in is not None else None
    except (TypeError, ValueError):
        seconds = None
    credential.expires_at = now + timedelta(seconds=seconds) if seconds and seconds > 0 else None
    credential.is_expired = False
    credential.last_refreshed_at = now
    credential.refresh_failed_at = None
    credential.refresh_error = None
    credential.save(
        update_fields=[
            "access_token",
            "refresh_token",
            "secrets",
            "dek_version",
            "expires_at",
            "is_expired",
            "last_refreshed_at",
            "refresh_failed_at",
            "refresh_error",
        ]
    )


def _record_failure(credential: Credential, failure: RefreshFailure, *, now, actor, request_id) -> dict:
    logger.warning("Refresh of credential %s failed: %s", credential.public_id, failure.code)
    if failure.permanent:
        credential.refresh_failed_at = now
        credential.refresh_error = {"code": failure.code, "message": failure.message}
        credential.save(update_fields=["refresh_failed_at", "refresh_error"])
    credential_audit(
        credential,
        action="CREDENTIAL_REFRESH_FAILED",
        actor=actor,
        details={"grantType": _grant_type(credential), "reason": failure.code, "message": failure.message},
        status="failure",
        request_id=request_id,
    )
    return {"code": failure.code, "message": failure.message, "at": iso_ms(now)}
