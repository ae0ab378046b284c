"""The platform client of a run, built in the worker from the configuration's vault credential:
the secrets are read here, when the run needs them, and live only in this client."""

from __future__ import annotations

from django.conf import settings

from adminops.audit import system_actor
from config.api.errors import ApiError
from ingestion.models import SyncConfiguration
from ingestion.pipeline.failures import RunFailed
from integrations.sitelib import SitelibClient, SitelibCredentials
from vault.services import credential_for_use


def sitelib_client(*, configuration: SyncConfiguration) -> SitelibClient:
    """A client authenticated with the app registration that the credential `integration_id`
    holds: `metadata.cloud_tid`, `metadata.client_id` (or `clientId`), and the secret
    `client_secret` (or `clientSecret`), or the certificate's `thumbprint` (metadata or secret) and
    private `key` (secret)."""
    try:
        credential = credential_for_use(
            tenant=configuration.tenant,
            integration_id=configuration.integration_id,
            actor=system_actor("ingestion"),
        )
    except ApiError as exc:
        raise RunFailed(f"The vault credential could not be used: {exc.message}") from None
    metadata, secrets = credential.metadata, credential.secrets
    cloud_tid = str(metadata.get("cloud_tid") or "")
    client_id = str(metadata.get("client_id") or metadata.get("clientId") or secrets.get("clientId") or "")
    if not cloud_tid or not client_id:
        raise RunFailed(
            f"The vault credential '{configuration.integration_id}' lacks metadata.cloud_tid or "
            "metadata.client_id."
        )
    credentials = SitelibCredentials(
        cloud_tid=cloud_tid,
        client_id=client_id,
        client_secret=secrets.get("client_secret") or secrets.get("clientSecret") or "",
        thumbprint=secrets.get("thumbprint") or str(metadata.get("thumbprint") or ""),
        private_key=secrets.get("key", ""),
    )
    return SitelibClient(
        graph_url=settings.SITELIB_GRAPH_URL, login_url=settings.SITELIB_LOGIN_URL, credentials=credentials
    )
