"""Demo data: one credential, so the vault endpoints show something on a fresh start."""

from __future__ import annotations

import secrets

from core.audit import system_actor
from core.models import Tenant
from core.seeding import seed_hook
from vault.models import Credential
from vault.services.credentials import credential_store


@seed_hook
def seed_vault_demo(tenant: Tenant) -> None:
    if Credential.objects.for_tenant(tenant).live().filter(integration_id="itsm-demo-001").exists():
        return  # seed_demo runs on every `make run`
    credential_store(
        tenant=tenant,
        actor=system_actor("seed_demo"),
        integration_id="itsm-demo-001",
        name="Demo ITSM instance",
        auth_type=Credential.AuthType.API_KEY,
        description="Demo credential created by seed_demo.",
        scopes=["tickets.read"],
        metadata={"environment": "demo", "rotationDays": 90},
        access_token="demo-" + secrets.token_urlsafe(24),  # random: no well-known demo secret
    )
