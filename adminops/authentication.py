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

from adminops.authcache import cached_lookup, remembered_lookup
from adminops.keys import api_key_hash, keyed_hash, looks_like_api_key, looks_like_oauth_token
from adminops.models import ApiKey, OAuthAccessToken, OAuthClient, ServiceAccount
from adminops.netaddr import ip_allowed
from adminops.principals import Principal
from adminops.scopes import service_scopes
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
        remote = request.META.get("REMOTE_ADDR")
        key = _remembered_key(request, raw, remote) or api_key_lookup(raw)
        if key is None:
            raise NotAuthenticated("Invalid API key.", headers={"WWW-Authenticate": BEARER_CHALLENGE})
        if not ip_allowed(remote, key.ip_whitelist):
            raise Forbidden("This API key may not be used from this address.", code="IP_NOT_ALLOWED")
        principal = Principal(
            kind="api_key",
            id=str(key.id),
            name=key.name,
            tenant_id=key.tenant_id,
            scopes=frozenset(key.scopes),
            tool_patterns=tuple(key.tool_patterns),
            obj=key,
        )
        request._request.usage_principal = principal  # counted after the response (adminops.usage)
        return (principal, principal)

    def authenticate_header(self, request):
        return BEARER_CHALLENGE


# Set on the request when its key came from this process's memory (adminops.authcache): the view
# must confirm this generation before the request is counted or answered (config.api.views).
UNCONFIRMED = "api_key_unconfirmed"


def _remembered_key(request, raw: str, remote: str | None) -> ApiKey | None:
    """The key from this process's memory when the view confirms it afterwards and every check
    passes on it; None otherwise (the cache or the database decides, as for any other request)."""
    django_request = request._request
    view = (getattr(request, "parser_context", None) or {}).get("view")
    django_request.__dict__.pop(UNCONFIRMED, None)
    if not getattr(view, "confirms_remembered_keys", False) or getattr(django_request, "recheck", False):
        return None
    digest = api_key_hash(raw)
    found = remembered_lookup(digest)
    if found is None:
        return None
    generation, key = found
    if _usable(key, digest) is None or not ip_allowed(remote, key.ip_whitelist):
        return None
    setattr(django_request, UNCONFIRMED, (generation, digest))
    return key


def api_key_lookup(raw: str) -> ApiKey | None:
    """The usable key for a raw value: the current key, or the previous one inside its grace period.
    The row comes from the lookup cache (adminops.authcache); the time checks run on every call."""
    digest = api_key_hash(raw)
    key = cached_lookup(digest, _api_key_row)
    if key is None:
        return None
    return _usable(key, digest)


def _usable(key: ApiKey, digest: str) -> ApiKey | None:
    now = timezone.now()
    if hmac.compare_digest(key.key_hash, digest):
        return key if key.usable_at(now) else None
    in_grace = key.previous_valid_until is not None and key.previous_valid_until > now
    if not in_grace or not hmac.compare_digest(key.previous_key_hash, digest):
        return None
    return key if key.usable_at(now) else None


def _api_key_row(digest: str) -> ApiKey | None:
    """The key whose current hash, or whose previous hash inside its grace period, is `digest`."""
    key = ApiKey.objects.select_related("tenant").filter(key_hash=digest).first()
    if key is not None:
        return key
    return (
        ApiKey.objects.select_related("tenant")
        .filter(previous_key_hash=digest, previous_valid_until__gt=timezone.now())
        .first()
    )


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
        request._request.usage_principal = principal
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
        principal = Principal(
            kind="user",
            id=str(user.id),
            name=user.display_name,
            email=user.email,
            is_super_admin=user.is_superuser,
            obj=user,
        )
        request._request.usage_principal = principal
        return (user, principal)

    def authenticate_header(self, request):
        return BEARER_CHALLENGE


class OAuthTokenScheme(OpenApiAuthenticationExtension):
    target_class = "adminops.authentication.OAuthTokenAuthentication"
    name = "OAuthToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An oat_… access token from POST /oauth/token (client credentials).",
        }
