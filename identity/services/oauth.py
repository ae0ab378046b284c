"""OAuth clients and service accounts: the records behind the OAuth 2 provider (identity/provider.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from oauth2_provider.models import (
    clear_expired,
    get_access_token_model,
    get_grant_model,
    get_refresh_token_model,
)
from oauth2_provider.settings import oauth2_settings

from core.api.errors import Conflict, ResourceNotFound, value_error
from core.api.fields import matches_pattern
from core.api.timestamps import iso_ms
from core.audit import audit_record
from core.models import Tenant
from core.people import person
from core.scopes import DEFAULT_SERVICE_PERMISSIONS, service_scopes
from identity.keys import SERVICE_CLIENT_PREFIX, SERVICE_SECRET_PREFIX, random_token
from identity.models import OAuthClient, OAuthCodeUse, ServiceAccount
from identity.provider import GRANT_TYPES, LIFETIME_BOUNDS
from identity.redirects import ORIGIN_PATTERN, redirect_uri_problem
from identity.services.api_keys import ip_whitelist_check, scopes_check

SERVICE_ACCOUNT_LIMIT = 25
CATEGORY = "oauth_clients"


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
    token_settings: dict = field(default_factory=dict)  # {accessTokenLifetime?, refreshTokenLifetime?}


def _check_client(spec: ClientSpec) -> None:
    _check_grants(spec)
    for index, uri in enumerate(spec.redirect_uris):
        problem = redirect_uri_problem(uri)
        if problem:
            raise value_error(("redirectUris", index), problem)
    if "authorization_code" in spec.grant_types and not spec.redirect_uris:
        raise value_error("redirectUris", "The authorization_code grant needs at least one redirect URI.")
    for index, origin in enumerate(spec.allowed_origins):
        if not matches_pattern(ORIGIN_PATTERN, origin):
            raise value_error(
                ("allowedOrigins", index), "An origin is http(s)://host[:port] with a dotted host name."
            )
    scopes_check(spec.scopes)
    ip_whitelist_check(spec.ip_whitelist)
    for name, seconds in spec.token_settings.items():
        low, high = LIFETIME_BOUNDS[name]
        if not low <= seconds <= high:
            raise value_error(("tokenSettings", name), f"Seconds from {low} to {high}.")


def _check_grants(spec: ClientSpec) -> None:
    """Only grants the provider serves, and only combinations it can honour."""
    grants = spec.grant_types
    if not grants or any(g not in GRANT_TYPES for g in grants):
        raise value_error("grantTypes", f"Allowed grant types: {', '.join(GRANT_TYPES)}.")
    if spec.client_type == OAuthClient.ClientType.PUBLIC and "client_credentials" in grants:
        raise value_error("grantTypes", "A public client cannot use the client_credentials grant.")
    if "refresh_token" in grants and "authorization_code" not in grants:
        raise value_error("grantTypes", "Refresh tokens are issued with the authorization_code grant only.")


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
                client_secret=secret or "",
                hash_client_secret=secret is not None,  # a public client has no secret to hash
                client_type=spec.client_type,
                redirect_uris=spec.redirect_uris,
                grant_types=spec.grant_types,
                scopes=spec.scopes,
                tool_patterns=spec.tool_patterns,
                allowed_origins=spec.allowed_origins,
                ip_whitelist=spec.ip_whitelist,
                token_settings=spec.token_settings,
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
    "tokenSettings": "token_settings",
    "status": "status",
}


def oauth_client_update(
    *, tenant: Tenant, client: OAuthClient, changes: dict, actor: dict, request_id: str
) -> tuple[OAuthClient, dict]:
    """Apply the given fields (arrays replace wholesale); `status: inactive` revokes its tokens."""
    with transaction.atomic():
        client = OAuthClient.objects.select_for_update(of=("self",)).get(id=client.id, tenant=tenant)
        if client.status == OAuthClient.Status.DELETED:
            raise ResourceNotFound("OAuth client not found.", code="OAUTH_CLIENT_NOT_FOUND")
        if "tokenSettings" in changes:
            changes["tokenSettings"] = client.token_settings | changes["tokenSettings"]
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
            revoked = oauth_tokens_revoke(client)
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
        token_settings=client.token_settings,
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


def active_token_count(client: OAuthClient) -> int:
    return get_access_token_model().objects.filter(application=client, expires__gt=timezone.now()).count()


def oauth_tokens_revoke(client: OAuthClient) -> int:
    """Every token and pending code of the client stops working at once; returns the live access
    tokens revoked. Refresh tokens stay as revoked rows, so a replay is still recognised."""
    live = active_token_count(client)
    now = timezone.now()
    get_refresh_token_model().objects.filter(application=client, revoked__isnull=True).update(
        revoked=now, updated=now
    )
    get_access_token_model().objects.filter(application=client).delete()
    get_grant_model().objects.filter(application=client).delete()
    return live


def oauth_client_delete(
    *, tenant: Tenant, client: OAuthClient, actor: dict, request_id: str
) -> tuple[OAuthClient, int, str]:
    with transaction.atomic():
        client = OAuthClient.objects.select_for_update(of=("self",)).get(id=client.id, tenant=tenant)
        if client.status == OAuthClient.Status.DELETED:
            raise Conflict(
                "This OAuth client was already deleted.",
                code="OAUTH_CLIENT_ALREADY_DELETED",
                details={"deletedAt": iso_ms(client.deleted_at)},
            )
        previous = client.status
        active = oauth_tokens_revoke(client)
        client.status, client.deleted_at, client.deleted_by = (
            OAuthClient.Status.DELETED,
            timezone.now(),
            person(actor),
        )
        client.save()  # a deleted client is not usable (OAuthClient.is_usable)
        _audit(tenant, client, "OAUTH_CLIENT_DELETED", actor, request_id, {"tokensRevoked": active})
    return client, active, previous


def oauth_client_rotate_secret(
    *, tenant: Tenant, client: OAuthClient, actor: dict, request_id: str
) -> tuple[OAuthClient, str]:
    """A new secret at once; the old one stops working. Issued tokens stay valid until they expire."""
    with transaction.atomic():
        client = OAuthClient.objects.select_for_update(of=("self",)).get(id=client.id, tenant=tenant)
        if client.status == OAuthClient.Status.DELETED:
            raise ResourceNotFound("OAuth client not found.", code="OAUTH_CLIENT_NOT_FOUND")
        if client.client_type != OAuthClient.ClientType.CONFIDENTIAL:
            raise Conflict("A public client has no secret to rotate.", code="OAUTH_CLIENT_PUBLIC")
        secret = random_token("cs_")
        client.client_secret, client.hash_client_secret = secret, True  # hashed when saved
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
        permissions = list(DEFAULT_SERVICE_PERMISSIONS)
        client_id = random_token(SERVICE_CLIENT_PREFIX, 18)
        client = OAuthClient.objects.create(
            tenant=tenant,
            name=client_id,  # never shown; unique without looking
            client_id=client_id,
            client_secret=secret,
            grant_types=["client_credentials"],
            scopes=service_scopes(permissions),
            created_by=person(actor),
        )
        account = ServiceAccount.objects.create(
            tenant=tenant,
            name=_service_account_name(tenant),
            oauth_client=client,
            permissions=permissions,
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


def service_account_status_set(*, account: ServiceAccount, status: str) -> None:
    """The console's switch: an inactive account's client is unusable and its tokens revoked."""
    with transaction.atomic():
        account.status = status
        account.save(update_fields=["status"])
        active = status == ServiceAccount.Status.ACTIVE
        client = account.oauth_client
        client.status = OAuthClient.Status.ACTIVE if active else OAuthClient.Status.INACTIVE
        client.save(update_fields=["status"])
        if not active:
            oauth_tokens_revoke(client)


def oauth_tokens_purge() -> int:
    """Expired tokens and codes are useless; the cleanup job removes them (the library's sweep),
    and the records of exchanged codes once no token they issued can be alive."""
    before = get_access_token_model().objects.count()
    clear_expired()
    oldest = timezone.now() - timedelta(seconds=oauth2_settings.REFRESH_TOKEN_EXPIRE_SECONDS)
    OAuthCodeUse.objects.filter(created_at__lt=oldest).delete()
    return max(before - get_access_token_model().objects.count(), 0)
