"""DRF authentication classes. The three credentials are told apart by form (DESIGN section 3):
API keys start `ak_live_`/`ak_test_`, OAuth access tokens `oat_`, JWTs have three dotted parts.
Each class declines (returns None) a token that is not its form, so the next one can try."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from oauth2_provider.oauth2_backends import get_oauthlib_core
from oauth2_provider.www_authenticate import build_bearer_challenge
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.exceptions import InvalidToken, TokenError

from core.api.errors import Forbidden, NotAuthenticated
from core.principals import Principal
from identity.keys import looks_like_api_key, looks_like_oauth_token
from identity.netaddr import ip_allowed
from identity.provider import scope_tenant, without_tenant
from identity.realms import realm_authenticate
from identity.selectors import api_key_find, member_scopes

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
    """`Bearer oat_...` access tokens of the OAuth 2 provider (identity/provider.py), checked by
    django-oauth-toolkit: an OAuth client, a service account, or a client acting for a user."""

    def authenticate(self, request):
        raw = bearer_token(request)
        if not raw or not looks_like_oauth_token(raw):
            return None
        # oauthlib's resource endpoint with the library's validator: only the token matters here.
        valid, checked = get_oauthlib_core().server.verify_request(
            request.build_absolute_uri(), request.method, None, {"Authorization": f"Bearer {raw}"}, []
        )
        principal = oauth_token_principal(checked.access_token) if valid else None
        if principal is None:
            # The library says why when it knows (a token bound to another resource, RFC 8707).
            error = getattr(checked, "oauth2_error", None) or {"error": "invalid_token"}
            message = error.get("error_description") or "Invalid or expired access token."
            challenge = build_bearer_challenge(request, error, realm="api", resource_metadata_url=None)
            raise NotAuthenticated(str(message), headers={"WWW-Authenticate": challenge})
        return (principal, principal)

    def authenticate_header(self, request):
        return BEARER_CHALLENGE


def oauth_token_principal(token) -> Principal | None:
    """Who a valid access token speaks for. A token a user authorised acts for that user: its
    scopes narrowed to what the user's roles in the tenant allow now (None: no longer a member).
    The tenant is the client's, or for a client of no tenant the one the user chose when they
    allowed it (identity.provider.TENANT_SCOPE)."""
    client = token.application
    account = getattr(client, "service_account", None)
    if account is not None:
        return Principal(
            kind="service_account",
            id=str(account.id),
            name=account.name,
            tenant_id=client.tenant_id,
            scopes=frozenset(token.scope.split()),
            obj=account,
        )
    granted = token.scope.split()
    tenant_id = client.tenant_id or scope_tenant(granted)
    if tenant_id is None:
        return None
    scopes, name, email, person = without_tenant(granted), client.name, "", {}
    if token.user_id is not None:
        scopes = member_scopes(user_id=token.user_id, tenant_id=tenant_id, scopes=scopes)
        if scopes is None:
            return None
        user = token.user
        name, email = f"{client.name} for {user.username}", user.email
        person = {"user_id": str(user.pk), "username": user.username}
    elif client.tenant_id is None:
        return None  # a client of no tenant only ever acts for a person
    return Principal(
        kind="oauth_client",
        id=str(client.id),
        name=name,
        email=email,
        tenant_id=tenant_id,
        scopes=frozenset(scopes),
        tool_patterns=tuple(client.tool_patterns),
        obj=client,
        **person,
    )


class JwtAuthentication(JWTAuthentication):
    """simplejwt, but only for tokens shaped like a JWT, with one flat 401 message."""

    def authenticate(self, request):
        # The scheme in any case (RFC 7235), as bearer_token reads it and simplejwt's own reading does not.
        token = bearer_token(request)
        if token is None or token.count(".") != 2:
            return None
        try:
            user = self.get_user(self.get_validated_token(token.encode()))
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
    target_class = "identity.authentication.RealmJwtAuthentication"
    name = "RealmJwt"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "description": "A JWT of a tenant's identity realm; the `realmname` header names the realm.",
        }


class OAuthTokenScheme(OpenApiAuthenticationExtension):
    target_class = "identity.authentication.OAuthTokenAuthentication"
    name = "OAuthToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An oat_… access token from POST /oauth/token (docs/oauth.md).",
        }
