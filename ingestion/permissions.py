"""A person's groups in the tenant's platforms (DESIGN section 19), for `identity.sources`: each
platform the tenant has a sync configuration of is asked once, with that configuration's vault
credential. A platform that cannot answer adds no groups (its person sees less, never more)."""

from __future__ import annotations

import logging

from core.models import Tenant
from core.outbound import OutboundRefused
from ingestion.models import SyncConfiguration
from ingestion.pipeline.failures import RunFailed
from ingestion.pipeline.sources import source_open
from integrations.errors import VendorError

logger = logging.getLogger(__name__)


def member_groups(tenant: Tenant, email: str) -> set[str]:
    """The group principals of the person with this e-mail in every platform of the tenant."""
    found: set[str] = set()
    asked: set[tuple[str, str]] = set()
    for configuration in SyncConfiguration.objects.for_tenant(tenant).order_by("created_at"):
        account = (configuration.platform, configuration.integration_id)
        if account in asked:
            continue
        asked.add(account)
        try:
            source = source_open(configuration)
        except RunFailed as exc:
            logger.warning("Groups of a user not looked up in %s: %s", configuration.public_id, exc)
            continue
        try:
            found |= source.member_groups(email)
        except (VendorError, OutboundRefused) as exc:
            logger.warning("Groups of a user not looked up in %s: %s", configuration.public_id, exc)
        finally:
            source.close()
    return found
