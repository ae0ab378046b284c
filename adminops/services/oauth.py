"""OAuth clients, service accounts and the client-credentials grant of POST /oauth/token."""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import urlsplit

from django.db import IntegrityError, transaction
from django.utils import timezone

from adminops.audit import audit_record
from adminops.keys import (
    OAUTH_TOKEN_PREFIX,
    SERVICE_CLIENT_PREFIX,
    SERVICE_SECRET_PREFIX,
    keyed_hash,
    random_token,
)
from adminops.models import OAuthAccessToken, OAuthClient, ServiceAccount, Tenant
from adminops.netaddr import ip_allowed
from adminops.people import person
from adminops.scopes import DEFAULT_SERVICE_PERMISSIONS, service_scopes
from adminops.services.api_keys import ip_whitelist_check, scopes_check
from config.api.errors import Conflict, ResourceNotFound, value_error
from config.api.timestamps import iso_ms

# Token lifetimes in seconds, named-endpoints 5's defaults. Only access tokens are issued today; the
# refresh and ID token lifetimes are what those tokens will have once their grants exist.
ACCESS_TOKEN_LIFETIME = 3600
REFRESH_TOKEN_LIFETIME = 86400
ID_TOKEN_LIFETIME = 3600
GRANT_TYPES = ("client_credentials", "authorization_code", "refresh_token")
SERVICE_ACCOUNT_LIMIT = 25
CATEGORY = "oauth_clients"
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}


def secret_hash(raw: str) -> str:
    return keyed_hash("oauth-client-secret", raw)


@dataclass
class ClientSpec:
    name: str
    client_type: str
    grant_types: list[str]
    scopes: list[str]
    redirect_uris: list[str] = field(default_factory=list)  # needed by authorization_code only
    description: str = ""
    allowed_origins: list[str] = field(default_factory=list)
    ip_whitelist: list[str] = field(default_factory=list)
    tool_patterns: list[str] = field(default_factory=list)


def _check_client(spec: ClientSpec) -> None:
    bad_grants = [g for g in spec.grant_types if g not in GRANT_TYPES]
    if bad_grants or not spec.grant_types:
        raise value_error("grantTypes", f"Allowed grant types: {', '.join(GRANT_TYPES)}.")
    if spec.client_type == OAuthClient.ClientType.PUBLIC and "client_credentials" in spec.grant_types:
        raise value_error("grantTypes", "A public client cannot use the client_credentials grant.")
    for index, uri in enumerate(spec.redirect_uris):
        problem = _redirect_problem(uri)
        if problem:
            raise value_error(("redirectUris", index), problem)
    if "authorization_code" in spec.grant_types and not spec.redirect_uris:
        raise value_error("redirectUris", "The authorization_code grant needs at least one redirect URI.")
    for index, origin in enumerate(spec.allowed_origins):
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
            raise value_error(("allowedOrigins", index), "An origin is scheme://host[:port].")
    scopes_check(spec.scopes)
    ip_whitelist_check(spec.ip_whitelist)


def _redirect_problem(uri: str) -> str | None:
    try:
        parts = urlsplit(uri)
    except ValueError:
        return "Not a valid URL."
    if not parts.scheme or not parts.hostname:
        return "A redirect URI must be an absolute URL."
    if parts.fragment:
        return "A redirect URI must not contain a fragment."
    if parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in _LOCAL_HOSTS):
        return None
    return "A redirect URI must use https (http is allowed only for localhost)."


def oauth_client_create(
    *, tenant: Tenant, spec: ClientSpec, actor: dict, request_id: str
) -> tuple[OAuthClient, str | None]:
    """Create a client; a confidential client's secret is returned this once."""
    _check_client(spec)
    _name_free(tenant, spec.name)
    secret = random_token("cs_") if spec.client_type == OAuthClient.ClientType.CONFIDENTIAL else None
    try:
        with transaction.atomic():
            client = OAuthClient.objects.create(
                tenant=tenant,
                name=spec.name,
                description=spec.description,
                client_id=random_token("client_", 18),
                secret_hash=secret_hash(secret) if secret else "",
                client_type=spec.client_type,
                redirect_uris=spec.redirect_uris,
                grant_types=spec.grant_types,
                scopes=spec.scopes,
                tool_patterns=spec.tool_patterns,
                allowed_origins=spec.allowed_origins,
                ip_whitelist=spec.ip_whitelist,
                created_by=person(actor),
            )
            _audit(tenant, client, "OAUTH_CLIENT_CREATED", actor, request_id, {"scopes": spec.scopes})
    except IntegrityError:
        raise _duplicate(spec.name) from None
    return client, secret


def _name_free(tenant: Tenant, name: str, *, except_id=None) -> None:
    taken = OAuthClient.objects.filter(tenant=tenant, name=name).exclude(status=OAuthClient.Status.DELETED)
    if except_id is not None:
        taken = taken.exclude(id=except_id)
    if taken.exists():
        raise _duplicate(name)


def _duplicate(name: str) -> Conflict:
    return Conflict(f"An OAuth client named {name!r} already exists.", code="OAUTH_CLIENT_NAME_EXISTS")


def _audit(tenant, client, action, actor, request_id, details) -> None:
    audit_record(
        tenant=tenant,
        action=action,
        category=CATEGORY,
        actor=actor,
        resource={"type": "oauth_client", "id": str(client.id), "name": client.name},
        details={"clientId": client.client_id, **details},
        request_id=request_id,
    )


_PATCHABLE = {
    "name": "name",
    "description": "description",
    "clientType": "client_type",
    "redirectUris": "redirect_uris",
    "grantTypes": "grant_types",
    "scopes": "scopes",
    "allowedOrigins": "allowed_origins",
    "ipWhitelist": "ip_whitelist",
    "toolPatterns": "tool_patterns",
    "status": "status",
}


def oauth_client_update(
    *, tenant: Tenant, client: OAuthClient, changes: dict, actor: dict, request_id: str
) -> tuple[OAuthClient, dict]:
    """Apply the given fields (arrays replace wholesale); `status: inactive` revokes its tokens."""
    with transaction.atomic():
        client = OAuthClient.objects.select_for_update().get(id=client.id, tenant=tenant)
        if client.status == OAuthClient.Status.DELETED:
            raise ResourceNotFound("OAuth client not found.", code="OAUTH_CLIENT_NOT_FOUND")
        diff = _diff(client, changes)
        for api_name in diff:
            setattr(client, _PATCHABLE[api_name], changes[api_name])
        _check_client(_spec_of(client))
        if "name" in diff:
            _name_free(tenant, client.name, except_id=client.id)
        client.updated_at, client.updated_by = timezone.now(), person(actor)
        client.save()
        revoked = 0
        if client.status != OAuthClient.Status.ACTIVE:
            revoked = _revoke_tokens(client)
        _audit(
            tenant,
            client,
            "OAUTH_CLIENT_UPDATED",
            actor,
            request_id,
            {"changed": sorted(diff), "tokensRevoked": revoked},
        )
    return client, diff


def _spec_of(client: OAuthClient) -> ClientSpec:
    return ClientSpec(
        name=client.name,
        client_type=client.client_type,
        redirect_uris=client.redirect_uris,
        grant_types=client.grant_types,
        scopes=client.scopes,
        allowed_origins=client.allowed_origins,
        ip_whitelist=client.ip_whitelist,
    )


def _diff(client: OAuthClient, changes: dict) -> dict:
    diff: dict = {}
    for api_name, new in changes.items():
        old = getattr(client, _PATCHABLE[api_name])
        if old == new:
            continue
        if isinstance(new, list):
            diff[api_name] = {
                "added": [v for v in new if v not in old],
                "removed": [v for v in old if v not in new],
            }
        else:
            diff[api_name] = {"from": old, "to": new}
    return diff


def _revoke_tokens(owner) -> int:
    count, _ = owner.tokens.all().delete()
    return count


def oauth_client_delete(
    *, tenant: Tenant, client: OAuthClient, actor: dict, request_id: str
) -> tuple[OAuthClient, int, str]:
    with transaction.atomic():
        client = OAuthClient.objects.select_for_update().get(id=client.id, tenant=tenant)
        if client.status == OAuthClient.Status.DELETED:
            raise Conflict(
                "This OAuth client was already deleted.",
                code="OAUTH_CLIENT_ALREADY_DELETED",
                details={"deletedAt": iso_ms(client.deleted_at)},
            )
        previous = client.status
        active = client.tokens.filter(expires_at__gt=timezone.now()).count()
        _revoke_tokens(client)
        client.status, client.deleted_at, client.deleted_by = (
            OAuthClient.Status.DELETED,
            timezone.now(),
            person(actor),
        )
        client.secret_hash = ""  # a deleted client can never authenticate again
        client.save()
        _audit(tenant, client, "OAUTH_CLIENT_DELETED", actor, request_id, {"tokensRevoked": active})
    return client, active, previous


def oauth_client_rotate_secret(
    *, tenant: Tenant, client: OAuthClient, actor: dict, request_id: str
) -> tuple[OAuthClient, str]:
    """A new secret at once; the old one stops working. Issued tokens stay valid until they expire."""
    with transaction.atomic():
        client = OAuthClient.objects.select_for_update().get(id=client.id, tenant=tenant)
        if client.status == OAuthClient.Status.DELETED:
            raise ResourceNotFound("OAuth client not found.", code="OAUTH_CLIENT_NOT_FOUND")
        if client.client_type != OAuthClient.ClientType.CONFIDENTIAL:
            raise Conflict("A public client has no secret to rotate.", code="OAUTH_CLIENT_PUBLIC")
        secret = random_token("cs_")
        client.secret_hash = secret_hash(secret)
        client.last_secret_rotated_at = timezone.now()
        client.secret_rotation_count += 1
        client.updated_at, client.updated_by = client.last_secret_rotated_at, person(actor)
        client.save()
        _audit(
            tenant,
            client,
            "OAUTH_CLIENT_SECRET_ROTATED",
            actor,
            request_id,
            {"rotationCount": client.secret_rotation_count},
        )
    return client, secret


def service_account_create(*, tenant: Tenant, actor: dict, request_id: str) -> tuple[ServiceAccount, str]:
    secret = random_token(SERVICE_SECRET_PREFIX)
    with transaction.atomic():
        Tenant.objects.select_for_update().filter(id=tenant.id).first()  # serialises the limit check
        if ServiceAccount.objects.filter(tenant=tenant).count() >= SERVICE_ACCOUNT_LIMIT:
            raise Conflict(
                f"The tenant has reached the maximum of {SERVICE_ACCOUNT_LIMIT} service accounts.",
                code="SERVICE_ACCOUNT_LIMIT_REACHED",
            )
        account = ServiceAccount.objects.create(
            tenant=tenant,
            name=_service_account_name(tenant),
            client_id=random_token(SERVICE_CLIENT_PREFIX, 18),
            secret_hash=secret_hash(secret),
            permissions=list(DEFAULT_SERVICE_PERMISSIONS),
            created_by=person(actor),
        )
        audit_record(
            tenant=tenant,
            action="SERVICE_ACCOUNT_CREATED",
            category=CATEGORY,
            actor=actor,
            resource={"type": "service_account", "id": str(account.id), "name": account.name},
            details={"clientId": account.client_id, "permissions": account.permissions},
            request_id=request_id,
        )
    return account, secret


def _service_account_name(tenant: Tenant) -> str:
    base = f"service-account-{timezone.now():%Y%m%d%H%M%S}"
    name, n = base, 1
    while ServiceAccount.objects.filter(tenant=tenant, name=name).exists():
        n += 1
        name = f"{base}-{n}"
    return name


class OAuthError(Exception):
    """An RFC 6749 section 5.2 error of the token endpoint."""

    def __init__(self, error: str, description: str, *, status: int = 400, basic: bool = False) -> None:
        super().__init__(description)
        self.error, self.description, self.status, self.basic = error, description, status, basic


@dataclass(frozen=True)
class TokenRequest:
    grant_type: str
    client_id: str
    client_secret: str
    scope: str | None
    basic: bool  # the client authenticated with client_secret_basic
    ip: str | None
    request_id: str


def token_issue(*, request: TokenRequest) -> dict:
    if request.grant_type != "client_credentials":
        raise OAuthError("unsupported_grant_type", "Only the client_credentials grant is supported.")
    owner = _authenticate_client(request)
    granted = _granted_scopes(owner, request)
    raw = random_token(OAUTH_TOKEN_PREFIX)
    now = timezone.now()
    with transaction.atomic():
        OAuthAccessToken.objects.create(
            token_hash=keyed_hash("oauth-token", raw),
            tenant_id=owner.tenant_id,
            client=owner if isinstance(owner, OAuthClient) else None,
            service_account=owner if isinstance(owner, ServiceAccount) else None,
            scopes=granted,
            expires_at=now + timedelta(seconds=ACCESS_TOKEN_LIFETIME),
        )
        _note_use(owner, request.ip, ok=True)
        _audit_token(owner, request, "OAUTH_TOKEN_ISSUED", "success", {"scopes": granted})
    return {
        "access_token": raw,
        "token_type": "Bearer",
        "expires_in": ACCESS_TOKEN_LIFETIME,
        "scope": " ".join(granted),
    }


def _authenticate_client(request: TokenRequest):
    invalid = OAuthError("invalid_client", "Client authentication failed.", status=401, basic=request.basic)
    if request.client_id.startswith(SERVICE_CLIENT_PREFIX):
        owner = ServiceAccount.objects.select_related("tenant").filter(client_id=request.client_id).first()
    else:
        owner = OAuthClient.objects.select_related("tenant").filter(client_id=request.client_id).first()
    if owner is None or not owner.secret_hash or not request.client_secret:
        raise invalid
    if not hmac.compare_digest(owner.secret_hash, secret_hash(request.client_secret)):
        with transaction.atomic():
            _note_use(owner, request.ip, ok=False)
            _audit_token(owner, request, "OAUTH_TOKEN_DENIED", "failure", {"reason": "invalid_client_secret"})
        raise invalid
    if owner.status != "active" or owner.tenant.status != Tenant.Status.ACTIVE:
        raise invalid
    if isinstance(owner, OAuthClient):
        if "client_credentials" not in owner.grant_types:
            raise OAuthError("unauthorized_client", "This client may not use the client_credentials grant.")
        if not ip_allowed(request.ip, owner.ip_whitelist):
            raise OAuthError(
                "invalid_client",
                "Token requests from this address are not allowed.",
                status=401,
                basic=request.basic,
            )
    return owner


def _granted_scopes(owner, request: TokenRequest) -> list[str]:
    allowed = owner.scopes if isinstance(owner, OAuthClient) else service_scopes(owner.permissions)
    if request.scope is None or not request.scope.strip():
        return list(allowed)
    wanted = request.scope.split()
    extra = [s for s in wanted if s not in allowed]
    if extra:
        raise OAuthError("invalid_scope", f"Scope(s) not granted to this client: {' '.join(extra)}.")
    return list(dict.fromkeys(wanted))


def _note_use(owner, ip: str | None, *, ok: bool) -> None:
    # Token requests are rare compared with API calls; a row update per request is fine here.
    from django.db.models import F

    now = timezone.now()
    if isinstance(owner, ServiceAccount):
        if ok:
            ServiceAccount.objects.filter(id=owner.id).update(last_used_at=now)
        return
    changes = {"token_requests": F("token_requests") + 1, "last_used_at": now, "last_used_ip": ip or ""}
    changes["successful_token_requests" if ok else "failed_token_requests"] = (
        F("successful_token_requests" if ok else "failed_token_requests") + 1
    )
    OAuthClient.objects.filter(id=owner.id).update(**changes)
    OAuthClient.objects.filter(id=owner.id, first_used_at__isnull=True).update(first_used_at=now)


def _audit_token(owner, request: TokenRequest, action: str, status: str, details: dict) -> None:
    kind = "service_account" if isinstance(owner, ServiceAccount) else "oauth_client"
    audit_record(
        tenant=owner.tenant,
        action=action,
        category="authentication",
        actor={"type": kind, "id": str(owner.id), "name": owner.name, "email": "", "ipAddress": request.ip},
        resource={"type": kind, "id": str(owner.id), "name": owner.name},
        details={"clientId": owner.client_id, "grantType": request.grant_type, **details},
        status=status,
        request_id=request.request_id,
    )


def oauth_tokens_purge(*, now=None) -> int:
    """Expired access tokens are useless; the cleanup job removes their rows."""
    count, _ = OAuthAccessToken.objects.filter(expires_at__lte=now or timezone.now()).delete()
    return count
