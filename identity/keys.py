"""API key material: 256 random bits, a readable prefix, stored only as a keyed hash."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from functools import cache

from django.conf import settings

KEY_PREFIXES = ("ak_live_", "ak_test_")
DISPLAY_PREFIX_LENGTH = 12


@cache
def _hash_key() -> bytes:
    return hashlib.sha256(b"api-key-hash|" + settings.SECRET_KEY.encode()).digest()


def api_key_generate(environment: str) -> str:
    return f"ak_{environment}_{secrets.token_urlsafe(32).replace('-', 'A').replace('_', 'z')}"


def api_key_hash(raw_key: str) -> str:
    return hmac.new(_hash_key(), raw_key.encode(), hashlib.sha256).hexdigest()


def api_key_display_prefix(raw_key: str) -> str:
    return raw_key[:DISPLAY_PREFIX_LENGTH]


def looks_like_api_key(token: str) -> bool:
    return token.startswith(KEY_PREFIXES)


# OAuth material. Client secrets and access tokens carry 256 random bits, so a keyed hash (not a slow
# password hash) is enough to make a stolen table useless; it also keeps /oauth/token cheap.
OAUTH_TOKEN_PREFIX = "oat_"  # noqa: S105 (a prefix, not a secret)
OAUTH_REFRESH_PREFIX = "ort_"
SERVICE_CLIENT_PREFIX = "sa_client_"
SERVICE_SECRET_PREFIX = "sa_secret_"  # noqa: S105 (a prefix, not a secret)


@cache
def _purpose_key(purpose: str) -> bytes:
    return hashlib.sha256(f"{purpose}-hash|".encode() + settings.SECRET_KEY.encode()).digest()


def keyed_hash(purpose: str, raw: str) -> str:
    return hmac.new(_purpose_key(purpose), raw.encode(), hashlib.sha256).hexdigest()


def random_token(prefix: str, nbytes: int = 32) -> str:
    return prefix + secrets.token_urlsafe(nbytes).replace("-", "A").replace("_", "z")


def looks_like_oauth_token(token: str) -> bool:
    return token.startswith(OAUTH_TOKEN_PREFIX)
