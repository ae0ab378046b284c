"""Field encryption (DESIGN section 6): AES-256-GCM under the tenant's data key, a fresh 96-bit
nonce per value, associated data `tenant | credential | field` so a ciphertext moved to another
row, tenant or column does not decrypt.

A stored value reads `v1:<dek version>:<base64 nonce+ciphertext>`: the format and the data-key
version travel with it, so decryption picks exactly one key and never tries keys in turn.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

FORMAT = "v1"
NONCE_BYTES = 12


class DecryptionFailed(Exception):
    """A value did not decrypt: wrong key, wrong binding, or a damaged value. Never carries data."""


@dataclass(frozen=True, slots=True)
class Sealed:
    """A stored ciphertext. It prints as a placeholder, so it can reach a repr, a log line or an
    admin page without revealing anything (the ciphertext itself is not shown either)."""

    stored: str

    @property
    def dek_version(self) -> int:
        return parse(self.stored)[0]

    def __repr__(self) -> str:
        return "<Sealed secret>"

    __str__ = __repr__


def associated_data(tenant_id, credential_id, field: str) -> bytes:
    return f"{tenant_id}|{credential_id}|{field}".encode()


@lru_cache(maxsize=256)
def _aead(key: bytes) -> AESGCM:
    # One cipher object per data key and process (keyring already keeps the unwrapped keys): building
    # it costs more than encrypting a short secret, and a DEK rotation seals thousands of values.
    return AESGCM(key)


def forget_ciphers() -> None:
    _aead.cache_clear()


def seal(plaintext: str, *, key: bytes, dek_version: int, aad: bytes) -> Sealed:
    nonce = os.urandom(NONCE_BYTES)
    ciphertext = _aead(key).encrypt(nonce, plaintext.encode(), aad)
    blob = base64.b64encode(nonce + ciphertext).decode()
    return Sealed(f"{FORMAT}:{dek_version}:{blob}")


def unseal(sealed: Sealed, *, key: bytes, aad: bytes) -> str:
    _, blob = parse(sealed.stored)
    try:
        return _aead(key).decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], aad).decode()
    except (InvalidTag, ValueError, UnicodeDecodeError):
        raise DecryptionFailed("A stored secret did not decrypt.") from None


def reseal(stored: str, *, old_key: Callable[[int], bytes], key: bytes, dek_version: int, aad: bytes) -> str:
    """A stored value sealed again under `key` (DEK rotation): same binding, a fresh nonce, the old
    key chosen by the version the value names (`old_key(version)`). The plaintext stays bytes
    inside this function; the result is the new stored form."""
    version, blob = parse(stored)
    try:
        plain = _aead(old_key(version)).decrypt(blob[:NONCE_BYTES], blob[NONCE_BYTES:], aad)
    except (InvalidTag, ValueError):
        raise DecryptionFailed("A stored secret did not decrypt.") from None
    nonce = os.urandom(NONCE_BYTES)
    blob = base64.b64encode(nonce + _aead(key).encrypt(nonce, plain, aad)).decode()
    return f"{FORMAT}:{dek_version}:{blob}"


def parse(stored: str) -> tuple[int, bytes]:
    try:
        fmt, version, blob = stored.split(":", 2)
        if fmt != FORMAT:
            raise ValueError(fmt)
        # strict: only the alphabet, padding only at the end (what b64encode writes); about a
        # third faster than b64decode(validate=True), which matters to a DEK rotation.
        return int(version), binascii.a2b_base64(blob, strict_mode=True)
    except (ValueError, TypeError):  # binascii.Error is a ValueError
        raise DecryptionFailed("A stored secret has an unknown format.") from None
