"""Implementations of the vault's named jobs (registered from VaultConfig.ready)."""

from __future__ import annotations

from adminops.jobs import job_implementation
from adminops.models import JobRun


@job_implementation("tokenExpiry")
def token_expiry(run: JobRun) -> int:
    from vault.services import credentials_flag_expired, credentials_refresh_expiring

    # Refresh first: a credential refreshed here is not flagged as expired a moment later.
    return credentials_refresh_expiring() + credentials_flag_expired()


@job_implementation("credentialRotationCheck")
def credential_rotation_check(run: JobRun) -> int:
    from vault.services import credentials_mark_rotation_due

    return credentials_mark_rotation_due()


@job_implementation("dekRotation")
def dek_rotation(run: JobRun) -> int:
    """With `rotationId` (the run a rotation queues): that rotation; without (beat's periodic run or
    an operator's trigger): every unfinished one."""
    from vault.services import dek_rotation_run, dek_rotations_resume

    rotation_id = (run.params or {}).get("rotationId")
    if rotation_id:
        return dek_rotation_run(rotation_id=rotation_id)
    return dek_rotations_resume()
