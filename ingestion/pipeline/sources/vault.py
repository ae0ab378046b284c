"""The vault credential a run uses, read in the worker when the run needs it: its secrets live
only in the platform client built from it."""

from __future__ import annotations

from core.api.errors import ApiError
from core.audit import system_actor
from ingestion.models import SyncConfiguration
from ingestion.pipeline.failures import RunFailed
from vault.services.use import CredentialForUse, credential_for_use


def credential_of(configuration: SyncConfiguration) -> CredentialForUse:
    try:
        return credential_for_use(
            tenant=configuration.tenant,
            integration_id=configuration.integration_id,
            actor=system_actor("ingestion"),
        )
    except ApiError as exc:
        raise RunFailed(f"The vault credential could not be used: {exc.message}") from None
