"""The key hierarchy (DESIGN section 6): master keys (KEKs) from `VAULT_MASTER_KEYS` wrap one data
key (DEK) per tenant and version; the DEKs encrypt the secret fields.

- `VAULT_MASTER_KEYS` is `id:base64key,...` (32-byte keys, the first is active). A malformed value
  stops start-up (`VaultConfig.ready`).
- Each master key id has a fingerprint row (an HMAC of a constant under the key). A configured key
  whose fingerprint differs from the stored one is a wrong key: `keyring_verify` raises before any
  data key is unwrapped, so a wrong key is an error, never garbage.
- Unwrapped DEKs are cached per process by (tenant, version): a decryption costs no query.
- Which version is a tenant's active one comes from `ACTIVE_DEKS` (vault.caches).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import threading
from dataclasses import dataclass
from functools import cache

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, transaction

from core.api.errors import ServiceUnavailable
from vault.caches import ACTIVE_DEKS
from vault.crypto import forget_ciphers
from vault.models import DataKey, MasterKeyFingerprint

_CHECK_CONSTANT = b"vault master key check v1"
_lock = threading.Lock()
_dek_cache: dict[tuple[str, int], bytes] = {}
_verified = False


class MasterKeyMismatch(ServiceUnavailable):
    """The configured master keys are not the ones the stored data keys were wrapped with: the
    vault answers 503 rather than decrypting with a wrong key."""

    code = "VAULT_KEY_MISMATCH"


@dataclass(frozen=True)
class MasterKeys:
    active_id: str
    keys: dict[str, bytes]


@cache
def master_keys() -> MasterKeys:
    return parse_master_keys(settings.VAULT_MASTER_KEYS or "")


def parse_master_keys(raw: str) -> MasterKeys:
    keys: dict[str, bytes] = {}
    for item in filter(None, (part.strip() for part in raw.split(","))):
        key_id, sep, encoded = item.partition(":")
        if not sep or not key_id or key_id in keys:
            raise ImproperlyConfigured("VAULT_MASTER_KEYS must be 'id:base64key,...' with unique ids.")
        try:
            key = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise ImproperlyConfigured(f"VAULT_MASTER_KEYS: key {key_id!r} is not base64.") from None
        if len(key) != 32:
            raise ImproperlyConfigured(f"VAULT_MASTER_KEYS: key {key_id!r} must be 32 bytes.")
        keys[key_id] = key
    if not keys:
        raise ImproperlyConfigured("VAULT_MASTER_KEYS is empty.")
    return MasterKeys(active_id=next(iter(keys)), keys=keys)


def fingerprint(key: bytes) -> str:
    return hmac.new(key, _CHECK_CONSTANT, hashlib.sha256).hexdigest()


def keyring_verify(*, force: bool = False) -> None:
    """Compare every configured master key with its stored fingerprint (recording new ones); raise
    MasterKeyMismatch for a key that differs or for data keys wrapped under a key not configured."""
    global _verified
    if _verified and not force:
        return
    keys = master_keys()
    stored = dict(MasterKeyFingerprint.objects.values_list("key_id", "fingerprint"))
    for key_id, key in keys.keys.items():
        if key_id in stored and not hmac.compare_digest(stored[key_id], fingerprint(key)):
            raise MasterKeyMismatch(f"Master key {key_id!r} is not the key this vault was set up with.")
        if key_id not in stored:
            try:
                with transaction.atomic():
                    MasterKeyFingerprint.objects.create(key_id=key_id, fingerprint=fingerprint(key))
            except IntegrityError:
                return keyring_verify(force=True)  # another process recorded it first: compare again
    wrapping = set(DataKey.objects.values_list("kek_id", flat=True).distinct())
    missing = sorted(wrapping - set(keys.keys))
    if missing:
        raise MasterKeyMismatch(
            f"Data keys are wrapped under master keys that are not configured: {missing}."
        )
    _verified = True


def _wrap_aad(tenant_id, version: int, kek_id: str) -> bytes:
    return f"dek|{tenant_id}|{version}|{kek_id}".encode()


def wrap(dek: bytes, *, tenant_id, version: int) -> tuple[str, str]:
    keys = master_keys()
    nonce = os.urandom(12)
    sealed = AESGCM(keys.keys[keys.active_id]).encrypt(
        nonce, dek, _wrap_aad(tenant_id, version, keys.active_id)
    )
    return keys.active_id, base64.b64encode(nonce + sealed).decode()


def unwrap(wrapped: str, *, tenant_id, version: int, kek_id: str) -> bytes:
    key = master_keys().keys.get(kek_id)
    if key is None:
        raise MasterKeyMismatch(f"Master key {kek_id!r} is not configured.")
    blob = base64.b64decode(wrapped)
    try:
        return AESGCM(key).decrypt(blob[:12], blob[12:], _wrap_aad(tenant_id, version, kek_id))
    except InvalidTag:
        raise MasterKeyMismatch("A data key did not unwrap under its master key.") from None


def dek_for(*, tenant_id, version: int) -> bytes:
    """The raw data key of (tenant, version), unwrapped once per process."""
    cache_key = (str(tenant_id), version)
    key = _dek_cache.get(cache_key)
    if key is not None:
        return key
    keyring_verify()
    row = DataKey.objects.filter(tenant_id=tenant_id, version=version).first()
    if row is None:
        raise MasterKeyMismatch(f"Data key version {version} of this tenant does not exist.")
    key = unwrap(row.wrapped, tenant_id=tenant_id, version=version, kek_id=row.kek_id)
    with _lock:
        _dek_cache[cache_key] = key
    return key


def active_dek(*, tenant_id) -> tuple[int, bytes]:
    """(version, key) of the tenant's active data key, created on first use."""

    def load() -> int | None:  # at most one key per tenant is active (a unique constraint)
        active = DataKey.objects.filter(tenant_id=tenant_id, status=DataKey.Status.ACTIVE)
        return active.values_list("version", flat=True).first()

    version = ACTIVE_DEKS.lookup(str(tenant_id), load)
    if version is None:
        version = dek_create(tenant_id=tenant_id, version=1, first=True)
    return version, dek_for(tenant_id=tenant_id, version=version)


def dek_create(*, tenant_id, version: int, first: bool = False) -> int:
    """Create and store a new wrapped data key. For the first one, a concurrent creator may win:
    then its key is the tenant's key."""
    keyring_verify()
    kek_id, wrapped = wrap(os.urandom(32), tenant_id=tenant_id, version=version)
    try:
        with transaction.atomic():
            DataKey.objects.create(tenant_id=tenant_id, version=version, kek_id=kek_id, wrapped=wrapped)
    except IntegrityError:
        if not first:
            raise
        return DataKey.objects.get(tenant_id=tenant_id, status=DataKey.Status.ACTIVE).version
    return version


def on_data_key_write(sender, **kwargs) -> None:
    """post_save and post_delete receiver for DataKey."""
    ACTIVE_DEKS.invalidate()


def dek_key_id(*, tenant_id, version: int) -> str:
    """The opaque key id the API shows for a data key."""
    return f"dek-{str(tenant_id)[:8]}-v{version}"


def forget_cached_keys() -> None:
    """Drop unwrapped keys and the verification mark (tests, master-key changes)."""
    global _verified
    with _lock:
        _dek_cache.clear()
    forget_ciphers()
    _verified = False
    master_keys.cache_clear()
