"""DRF authentication classes. The three credentials are told apart by form (DESIGN section 3):
API keys start `ak_live_`/`ak_test_`, OAuth access tokens `oat_`, JWTs have three dotted parts.
Each class declines (returns None) a token that is not its form, so the next one can try."""

from __future__ import annotations

import hmac

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework_simplejwt.authentication import JWTAuthentication
from rest_framework_simplejwt.exceptions import InvalidToken, TokenError

from adminops.keys import api_key_hash, looks_like_api_key
from adminops.models import ApiKey
from adminops.principals import Principal
from config.api.errors import NotAuthenticated

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
        raw = request.META.get("HTTP_X_API_KEY") or bearer_token(request)
        if not raw or not looks_like_api_key(raw):
            return None
        key = api_key_lookup(raw)
        if key is None:
            raise NotAuthenticated("Invalid API key.", headers={"WWW-Authenticate": BEARER_CHALLENGE})
        principal = Principal(
            kind="api_key",
            id=str(key.id),
            name=key.name,
            tenant_id=key.tenant_id,
            scopes=frozenset(key.scopes),
            tool_patterns=tuple(key.tool_patterns),
            obj=key,
        )
        return (principal, principal)

    def authenticate_header(self, request):
        return BEARER_CHALLENGE


def api_key_lookup(raw: str) -> ApiKey | None:
    digest = api_key_hash(raw)
    key = ApiKey.objects.select_related("tenant").filter(key_hash=digest).first()
    if key is None or not hmac.compare_digest(key.key_hash, digest):
        return None
    if not key.usable_at(timezone.now()):
        return None
    return key


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
        return (user, principal)

    def authenticate_header(self, request):
        return BEARER_CHALLENGE
