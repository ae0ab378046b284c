"""Implementations of the vault's named jobs (registered from VaultConfig.ready)."""

from __future__ import annotations

from core.jobs import job_implementation
from core.models import JobRun
from vault.services.dek import dek_rotation_run, dek_rotations_resume
from vault.services.expiry import (
    credentials_flag_expired,
    credentials_mark_rotation_due,
    credentials_refresh_expiring,
)


@job_implementation("tokenExpiry")
def token_expiry(run: JobRun) -> int:
    # Refresh first: a credential refreshed here is not flagged as expired a moment later.
    return credentials_refresh_expiring() + credentials_flag_expired()


@job_implementation("credentialRotationCheck")
def credential_rotation_check(run: JobRun) -> int:
    return credentials_mark_rotation_due()


@job_implementation("dekRotation")
def dek_rotation(run: JobRun) -> int:
    """With `rotationId` (the run a rotation queues): that rotation; without (beat's periodic run or
    an operator's trigger): every unfinished one."""
    rotation_id = (run.params or {}).get("rotationId")
    if rotation_id:
        return dek_rotation_run(rotation_id=rotation_id)
    return dek_rotations_resume()
