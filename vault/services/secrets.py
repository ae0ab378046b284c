"""The one place plaintext secrets exist: sealing a credential's fields under the tenant's active
data key, and revealing them for the services that must (decrypted GET, refresh, rotation,
connectors)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from vault import keyring
from vault.crypto import Sealed, associated_data, seal, unseal
from vault.models import Credential

SECRET_FIELDS = ("access_token", "refresh_token", "secrets")


@dataclass
class Revealed:
    """Plaintext of one credential's secrets. Its repr names the fields present, never values."""

    access_token: str | None = field(default=None, repr=False)
    refresh_token: str | None = field(default=None, repr=False)
    secrets: dict[str, str] | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        present = [name for name in SECRET_FIELDS if getattr(self, name) is not None]
        return f"<Revealed {', '.join(present) or 'nothing'}>"


def reveal(credential: Credential) -> Revealed:
    def open_field(name: str) -> str | None:
        sealed: Sealed | None = getattr(credential, name)
        if sealed is None:
            return None
        key = keyring.dek_for(tenant_id=credential.tenant_id, version=sealed.dek_version)
        return unseal(sealed, key=key, aad=associated_data(credential.tenant_id, credential.id, name))

    raw_secrets = open_field("secrets")
    return Revealed(
        access_token=open_field("access_token"),
        refresh_token=open_field("refresh_token"),
        secrets=json.loads(raw_secrets) if raw_secrets is not None else None,
    )


def seal_into(credential: Credential, values: Revealed, *, version: int | None = None) -> None:
    """Seal every secret field of `credential` from `values` under one data key (the active one
    unless `version` names another), so a row's `dek_version` covers all its fields."""
    if version is None:
        version, key = keyring.active_dek(tenant_id=credential.tenant_id)
    else:
        key = keyring.dek_for(tenant_id=credential.tenant_id, version=version)
    for name in SECRET_FIELDS:
        plain = getattr(values, name)
        if plain is not None and name == "secrets":
            plain = json.dumps(plain, sort_keys=True, separators=(",", ":"))
        aad = associated_data(credential.tenant_id, credential.id, name)
        setattr(
            credential, name, None if plain is None else seal(plain, key=key, dek_version=version, aad=aad)
        )
    credential.dek_version = version
