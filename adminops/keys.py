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
