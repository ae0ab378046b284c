"""DRF authentication classes. The three credentials are told apart by form (DESIGN section 3):
API keys start `ak_live_`/`ak_test_`, OAuth access tokens `oat_`, JWTs have three dotted parts.
Each class declines (returns None) a token that is not its form, so the next one can try."""

from __future__ import annotations

import hmac

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.exceptions import InvalidToken, TokenError

from adminops.keys import keyed_hash, looks_like_api_key, looks_like_oauth_token
from adminops.models import OAuthAccessToken, OAuthClient, ServiceAccount
from adminops.netaddr import ip_allowed
from adminops.principals import Principal
from adminops.realms import realm_authenticate
from adminops.scopes import service_scopes
from adminops.selectors import api_key_find
from config.api.errors import Forbidden, NotAuthenticated

BEARER_CHALLENGE = 'Bearer realm="api"'


def bearer_token(request) -> str | None:
    parts = get_authorization_header(request).split()
    if len(parts) != 2 or parts[0].lower() != b"bearer":
        return None
    try:
        return parts[1].decode("ascii")
    except UnicodeDecodeError:
        return None


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request):
        header = request.META.get("HTTP_X_API_KEY")
        raw = header or bearer_token(request)
        if not raw or not looks_like_api_key(raw):
            if header:  # a credential that was sent is checked, never skipped for the Bearer one
                raise NotAuthenticated("Invalid API key.", headers={"WWW-Authenticate": BEARER_CHALLENGE})
            return None
        key = api_key_find(raw)
        if key is None or not key.usable_at(timezone.now()):
            raise NotAuthenticated("Invalid API key.", headers={"WWW-Authenticate": BEARER_CHALLENGE})
        if not ip_allowed(request.META.get("REMOTE_ADDR"), key.ip_whitelist):
            raise Forbidden("This API key may not be used from this address.", code="IP_NOT_ALLOWED")
        principal = Principal.of_api_key(key)
        return (principal, principal)

    def authenticate_header(self, request):
        return BEARER_CHALLENGE


class OAuthTokenAuthentication(BaseAuthentication):
    """`Bearer oat_...` access tokens from /oauth/token: an OAuth client or a service account."""

    def authenticate(self, request):
        raw = bearer_token(request)
        if not raw or not looks_like_oauth_token(raw):
            return None
        token = oauth_token_lookup(raw)
        if token is None:
            raise NotAuthenticated(
                "Invalid or expired access token.", headers={"WWW-Authenticate": BEARER_CHALLENGE}
            )
        principal = _token_principal(token)
        return (principal, principal)

    def authenticate_header(self, request):
        return BEARER_CHALLENGE


def oauth_token_lookup(raw: str) -> OAuthAccessToken | None:
    digest = keyed_hash("oauth-token", raw)
    token = (
        OAuthAccessToken.objects.select_related("client__tenant", "service_account__tenant")
        .filter(token_hash=digest, expires_at__gt=timezone.now())
        .first()
    )
    if token is None or not hmac.compare_digest(token.token_hash, digest):
        return None
    owner = token.client or token.service_account
    # Disabling or deleting the owner also deletes its tokens; this check closes the window between.
    active = {OAuthClient.Status.ACTIVE, ServiceAccount.Status.ACTIVE}
    if owner is None or owner.status not in active:
        return None
    return token


def _token_principal(token: OAuthAccessToken) -> Principal:
    if token.service_account is not None:
        account = token.service_account
        return Principal(
            kind="service_account",
            id=str(account.id),
            name=account.name,
            tenant_id=token.tenant_id,
            scopes=frozenset(token.scopes or service_scopes(account.permissions)),
            obj=account,
        )
    client = token.client
    return Principal(
        kind="oauth_client",
        id=str(client.id),
        name=client.name,
        tenant_id=token.tenant_id,
        scopes=frozenset(token.scopes),
        tool_patterns=tuple(client.tool_patterns),
        obj=client,
    )


class JwtAuthentication(JWTAuthentication):
    """simplejwt, but only for tokens shaped like a JWT, with one flat 401 message."""

    def authenticate(self, request):
        token = bearer_token(request)
        if token is None or token.count(".") != 2:
            return None
        try:
            user, _validated = super().authenticate(request)
        except (InvalidToken, TokenError) as exc:
            raise NotAuthenticated(
                "Invalid or expired token.", headers={"WWW-Authenticate": BEARER_CHALLENGE}
            ) from exc
        return (user, Principal.of_user(user))

    def authenticate_header(self, request):
        return BEARER_CHALLENGE


class RealmJwtAuthentication(BaseAuthentication):
    """`realmname: <realm>` with a Bearer JWT: a user of the tenant's identity realm (DESIGN 17).
    A name that is no realm of the tenant declines, so the service's own JWTs still work."""

    def authenticate(self, request):
        name = request.headers.get("realmname", "").strip()
        token = bearer_token(request)
        if token is None or token.count(".") != 2 or not 0 < len(name) <= 255 or not name.isprintable():
            return None  # a name no realm can have names no realm
        principal = realm_authenticate(request, name=name, token=token)
        return None if principal is None else (principal, principal)

    def authenticate_header(self, request):
        return BEARER_CHALLENGE


class RealmJwtScheme(OpenApiAuthenticationExtension):
    target_class = "adminops.authentication.RealmJwtAuthentication"
    name = "RealmJwt"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "description": "A JWT of a tenant's identity realm; the `realmname` header names the realm.",
        }


class OAuthTokenScheme(OpenApiAuthenticationExtension):
    target_class = "adminops.authentication.OAuthTokenAuthentication"
    name = "OAuthToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An oat_… access token from POST /oauth/token (client credentials).",
        }
