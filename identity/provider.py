"""The OAuth 2 provider (django-oauth-toolkit, configured in settings.OAUTH2_PROVIDER): the grants
this service serves, its `oat_` tokens, the client's scopes and token lifetimes, and the audit
entries of issuance, denial, refresh-token reuse and revocation. docs/oauth.md describes the flows.
"""

from __future__ import annotations

import hashlib
import uuid
from types import SimpleNamespace
from urllib.parse import urlsplit

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_refresh_token_model, revoke_access_token
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauth2_provider.scopes import BaseScopes
from oauthlib.oauth2 import (
    AuthorizationCodeGrant,
    AuthorizationEndpoint,
    BearerToken,
    ClientCredentialsGrant,
    IntrospectEndpoint,
    InvalidRequestError,
    InvalidRequestFatalError,
    RefreshTokenGrant,
    ResourceEndpoint,
    RevocationEndpoint,
    TokenEndpoint,
)

from core.api.request_id import current_request_id
from core.audit import audit_record
from core.models import Tenant
from core.scopes import AREA_WILDCARDS, REGISTRABLE_SCOPES, SCOPES
from identity.keys import OAUTH_REFRESH_PREFIX, OAUTH_TOKEN_PREFIX, random_token
from identity.models import Membership, OAuthClient, OAuthCodeUse, ServiceAccount
from identity.netaddr import ip_allowed

GRANT_TYPES = ("authorization_code", "client_credentials", "refresh_token")
# Token lifetimes in seconds (named-endpoints 5): the defaults, and what a client may set.
DEFAULT_LIFETIMES = {"accessTokenLifetime": 3600, "refreshTokenLifetime": 86400, "idTokenLifetime": 3600}
LIFETIME_BOUNDS = {"accessTokenLifetime": (60, 86400), "refreshTokenLifetime": (300, 90 * 86400)}


def lifetime(client, name: str) -> int:
    return int(client.token_settings.get(name, DEFAULT_LIFETIMES[name]))


def access_token_generate(request) -> str:
    return random_token(OAUTH_TOKEN_PREFIX)


def refresh_token_generate(request) -> str:
    return random_token(OAUTH_REFRESH_PREFIX)


def _access_token_lifetime(request) -> int:
    return lifetime(request.client, "accessTokenLifetime")


class Server(AuthorizationEndpoint, IntrospectEndpoint, TokenEndpoint, ResourceEndpoint, RevocationEndpoint):
    """oauthlib's all-in-one server with only the grants this service serves: authorization code,
    client credentials and refresh token (any other grant_type is `unsupported_grant_type`)."""

    def __init__(self, request_validator, token_generator=None, refresh_token_generator=None, **kwargs):
        code = AuthorizationCodeGrant(request_validator)
        code.custom_validators.pre_auth.append(_redirect_uri_named)
        code.custom_validators.post_auth.append(_s256_only)
        bearer = BearerToken(
            request_validator, token_generator, _access_token_lifetime, refresh_token_generator
        )
        AuthorizationEndpoint.__init__(
            self, default_response_type="code", response_types={"code": code}, default_token_type=bearer
        )
        grants = {
            "authorization_code": code,
            "client_credentials": ClientCredentialsGrant(request_validator),
            "refresh_token": RefreshTokenGrant(request_validator),
        }
        TokenEndpoint.__init__(
            self, default_grant_type="authorization_code", grant_types=grants, default_token_type=bearer
        )
        ResourceEndpoint.__init__(self, default_token="Bearer", token_types={"Bearer": bearer})  # noqa: S106
        RevocationEndpoint.__init__(self, request_validator)
        IntrospectEndpoint.__init__(self, request_validator)


def _redirect_uri_named(request) -> dict:
    """The exchange must repeat the request's redirect URI (RFC 6749 section 4.1.3), so every
    authorization request names one, which a public client's exchange can then be held to."""
    if request.using_default_redirect_uri:
        raise InvalidRequestFatalError(description="redirect_uri is required.", request=request)
    return {}


def _s256_only(request) -> dict:
    """PKCE with S256 (RFC 9700 section 2.1.1), refused while the request is checked: before the
    person signs in or sees the consent page, not after."""
    if request.code_challenge_method != "S256":
        raise InvalidRequestError(description='PKCE needs code_challenge_method "S256".', request=request)
    return {}


# A client that belongs to no tenant (it registered itself) acts, for each person who allows it,
# in the tenant that person chose on the consent page: the grant carries it as the scope
# `tenant:<id>`, which the library keeps on the code, the tokens and every refresh of them.
TENANT_SCOPE = "tenant:"


def tenant_scope(tenant_id) -> str:
    return f"{TENANT_SCOPE}{tenant_id}"


def scope_tenant(scopes: list[str]) -> uuid.UUID | None:
    """The tenant a grant is bound to, from its scopes (None: none, or more than one)."""
    named = {scope[len(TENANT_SCOPE) :] for scope in scopes if scope.startswith(TENANT_SCOPE)}
    if len(named) != 1:
        return None
    try:
        return uuid.UUID(named.pop())
    except ValueError:
        return None


def without_tenant(scopes: list[str]) -> list[str]:
    return [scope for scope in scopes if not scope.startswith(TENANT_SCOPE)]


def resource_elsewhere(request, resources: list[str]) -> str | None:
    """The first RFC 8707 resource that is not on this service's origin (a token is only ever
    for this service's own endpoints), or None."""
    here = urlsplit(request.build_absolute_uri("/"))
    for resource in resources:
        try:
            there = urlsplit(resource)
            same = (there.scheme, there.netloc.lower()) == (here.scheme, here.netloc.lower())
        except ValueError:
            same = False
        if not same:
            return resource
    return None


class ClientScopes(BaseScopes):
    """This service's scopes; a client may ask for those on its record, and gets them all by default.
    A client of no tenant may also carry the tenant of a person it acts for (the consent page
    checks the person belongs to it). Without a client (the metadata documents): the scopes one may
    ask for by name."""

    def get_all_scopes(self):
        return {scope: scope for scope in (*SCOPES, *AREA_WILDCARDS)}

    def get_available_scopes(self, application=None, request=None, *args, **kwargs):
        if application is None:
            return list(REGISTRABLE_SCOPES)
        scopes = list(application.scopes)
        user = getattr(request, "user", None)
        if application.tenant_id is None and getattr(user, "pk", None) is not None:
            memberships = Membership.objects.filter(user_id=user.pk).values_list("tenant_id", flat=True)
            scopes += [tenant_scope(tenant_id) for tenant_id in memberships]
        return scopes

    def get_default_scopes(self, application=None, request=None, *args, **kwargs):
        return list(application.scopes if application is not None else REGISTRABLE_SCOPES)


class Validator(OAuth2Validator):
    """The library's validator plus this service's rules: IP allow-lists, per-client refresh-token
    lifetimes, usage counters and the audit trail."""

    def authenticate_client(self, request, *args, **kwargs):
        ok = super().authenticate_client(request, *args, **kwargs)
        return ok and ip_allowed(_ip(request), request.client.ip_whitelist)

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        return grant_type in client.grant_types  # refresh_token too is granted explicitly

    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        if super().validate_refresh_token(refresh_token, client, request, *args, **kwargs):
            issued = request.refresh_token_instance.created
            return (timezone.now() - issued).total_seconds() < lifetime(client, "refreshTokenLifetime")
        checksum = _digest(refresh_token)
        reused = get_refresh_token_model().objects.filter(
            token_checksum=checksum, application=client, revoked__isnull=False
        )
        if reused.exists():
            # The library revoked the token's whole family: a replayed refresh token means it leaked.
            _audit(client, request, "OAUTH_REFRESH_TOKEN_REUSED", {"familyRevoked": True}, status="failure")
        return False

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        if super().validate_code(client_id, code, client, request, *args, **kwargs):
            return True
        used = OAuthCodeUse.objects.filter(code_hash=_digest(code), client=client).first()
        if used is not None:
            # A code exchanged a second time leaked: what its first exchange issued is revoked.
            with transaction.atomic():
                _code_tokens_revoke(used)
                _audit(client, request, "OAUTH_CODE_REUSED", {"tokensRevoked": True}, status="failure")
        return False

    @transaction.atomic
    def save_bearer_token(self, token, request, *args, **kwargs):
        super().save_bearer_token(token, request, *args, **kwargs)
        if request.grant_type == "authorization_code":
            _code_use_record(request, token)
        _note_use(request.client, _ip(request), ok=True)
        scopes = token.get("scope", "").split()
        details = {"scopes": without_tenant(scopes), "expiresIn": token.get("expires_in")}
        if request.user is not None:
            details["user"] = {"id": str(request.user.pk), "username": request.user.get_username()}
        _audit(request.client, request, "OAUTH_TOKEN_ISSUED", details, tenant_id=scope_tenant(scopes))

    def revoke_token(self, token, token_type_hint, request, *args, **kwargs):
        super().revoke_token(token, token_type_hint, request, *args, **kwargs)
        _audit(request.client, request, "OAUTH_TOKEN_REVOKED", {"tokenTypeHint": token_type_hint})


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _code_use_record(request, token: dict) -> None:
    refresh = token.get("refresh_token")
    family = None
    if refresh:
        issued = get_refresh_token_model().objects.filter(token_checksum=_digest(refresh)).first()
        family = issued.token_family if issued else None
    OAuthCodeUse.objects.create(
        code_hash=_digest(request.code),
        client=request.client,
        access_token_hash=_digest(token["access_token"]),
        token_family=family,
    )


def _code_tokens_revoke(used: OAuthCodeUse) -> None:
    access = get_access_token_model().objects.filter(token_checksum=used.access_token_hash).first()
    if access is not None:
        revoke_access_token(access)
    get_refresh_token_model().revoke_family(used.token_family)


def _ip(request) -> str | None:
    return request.headers.get("REMOTE_ADDR")


def client_authentication_failed(client, *, ip: str | None, grant_type: str | None) -> None:
    """A token request named this client but did not authenticate as it (or came from an address
    its allow-list refuses): counted and audited, never with what was sent as the secret."""
    with transaction.atomic():
        _note_use(client, ip, ok=False)
        request = SimpleNamespace(headers={"REMOTE_ADDR": ip}, grant_type=grant_type)
        _audit(client, request, "OAUTH_TOKEN_DENIED", {"reason": "invalid_client"}, status="failure")


def _note_use(client, ip: str | None, *, ok: bool) -> None:
    now = timezone.now()
    if hasattr(client, "service_account"):
        if ok:
            ServiceAccount.objects.filter(oauth_client=client).update(last_used_at=now)
        return
    outcome = "successful_token_requests" if ok else "failed_token_requests"
    OAuthClient.objects.filter(id=client.id).update(
        token_requests=F("token_requests") + 1,
        last_used_at=now,
        last_used_ip=ip or "",
        **{outcome: F(outcome) + 1},
    )
    OAuthClient.objects.filter(id=client.id, first_used_at__isnull=True).update(first_used_at=now)


def _audit(client, request, action: str, details: dict, *, status: str = "success", tenant_id=None) -> None:
    """Into the client's tenant's trail; a client of no tenant's into the trail of the tenant its
    grant is bound to (`tenant_id`), or the platform's when there is none."""
    account = getattr(client, "service_account", None)
    owner, kind = (account, "service_account") if account else (client, "oauth_client")
    who = {"type": kind, "id": str(owner.id), "name": owner.name}
    tenant = client.tenant
    if tenant is None and tenant_id is not None:
        tenant = Tenant.objects.filter(id=tenant_id).first()
    audit_record(
        tenant=tenant,
        action=action,
        category="authentication",
        actor=who | {"email": "", "ipAddress": _ip(request)},
        resource=who,
        details={"clientId": client.client_id, "grantType": request.grant_type, **details},
        status=status,
        request_id=current_request_id(),
    )
