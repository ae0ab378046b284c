"""Tenant settings and deletion (the cascade and the counts of what went with it)."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from core.api.errors import Conflict
from core.audit import audit_record
from core.models import Tenant
from core.people import person
from identity.models import Membership, User
from identity.services.users import console_access_sync
from vault.selectors import credential_live_count

CATEGORY = "tenants"


def tenant_update(*, tenant: Tenant, changes: dict, actor: dict, request_id: str) -> Tenant:
    """`serverUrl`, `realmName`, and `settings` (replaced whole, never merged)."""
    fields = {"serverUrl": "server_url", "realmName": "realm_name", "settings": "settings"}
    with transaction.atomic():
        tenant = Tenant.objects.select_for_update().get(id=tenant.id)
        changed = sorted(name for name, value in changes.items() if getattr(tenant, fields[name]) != value)
        for name, value in changes.items():
            setattr(tenant, fields[name], value)
        tenant.save()
        audit_record(
            tenant=tenant,
            action="TENANT_UPDATED",
            category=CATEGORY,
            actor=actor,
            resource={"type": "tenant", "id": str(tenant.id), "name": tenant.name},
            details={"changed": changed},
            request_id=request_id,
        )
    return tenant


def subscription_active(tenant: Tenant) -> bool:
    """A subscription blocks deletion while its status is `active` and it has not expired."""
    subscription = tenant.subscription or {}
    if subscription.get("status") != "active":
        return False
    expires = subscription.get("expiresAt")
    if not expires:
        return True
    try:
        moment = datetime.fromisoformat(str(expires).replace("Z", "+00:00"))
    except ValueError:
        return True
    return moment > timezone.now()


def tenant_delete(*, tenant: Tenant, actor: dict, request_id: str) -> dict:
    """Delete the tenant and everything it owns (FK cascades); users who belonged to no other tenant
    go too. The audit entries stay: they are not tied to the tenant row."""
    with transaction.atomic():
        tenant = Tenant.objects.select_for_update().get(id=tenant.id)
        if subscription_active(tenant):
            raise Conflict("The tenant has an active subscription.", code="TENANT_HAS_ACTIVE_SUBSCRIPTION")
        member_ids = list(Membership.objects.filter(tenant=tenant).values_list("user_id", flat=True))
        counts = {
            "users": len(member_ids),
            "credentials": credential_live_count(tenant=tenant),
            "apiKeys": tenant.api_keys.count(),
            "oauthClients": tenant.oauth_clients.registered().count(),
            "serviceAccounts": tenant.service_accounts.count(),
        }
        audit_record(
            tenant=tenant,
            action="TENANT_DELETED",
            category=CATEGORY,
            actor=actor,
            resource={"type": "tenant", "id": str(tenant.id), "name": tenant.name},
            details={"resourcesDeleted": counts},
            request_id=request_id,
        )
        snapshot = {"id": str(tenant.id), "name": tenant.name}
        tenant.delete()
        User.objects.filter(id__in=member_ids, is_superuser=False, memberships__isnull=True).delete()
        console_access_sync(user_ids=member_ids)
    return snapshot | {"deletedAt": timezone.now(), "deletedBy": person(actor), "resourcesDeleted": counts}
