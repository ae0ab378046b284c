"""Vault services: the writes, the secret reads and the jobs' work. Import from here."""

from vault.services.credentials import (
    credential_delete,
    credential_read_secrets,
    credential_rotate,
    credential_store,
    credential_update,
)
from vault.services.dek import dek_rotation_run, dek_rotation_start, dek_rotations_resume
from vault.services.expiry import (
    credentials_flag_expired,
    credentials_mark_rotation_due,
    credentials_refresh_expiring,
)
from vault.services.refresh import credential_refresh
from vault.services.use import CredentialForUse, credential_for_use

__all__ = [
    "CredentialForUse",
    "credential_delete",
    "credential_for_use",
    "credential_read_secrets",
    "credential_refresh",
    "credential_rotate",
    "credential_store",
    "credential_update",
    "credentials_flag_expired",
    "credentials_mark_rotation_due",
    "credentials_refresh_expiring",
    "dek_rotation_run",
    "dek_rotation_start",
    "dek_rotations_resume",
]
