"""Reads of the roof: a tenant by id for the admin API, and a tenant's audit entries."""

from __future__ import annotations

import uuid

from core.api.errors import ResourceNotFound
from core.models import AuditEntry, Tenant


def tenant_get(*, acting: Tenant, tenant_id: uuid.UUID, super_admin: bool) -> Tenant:
    """The tenant named in the path: the caller's own, or any for a super admin; otherwise 404."""
    if tenant_id != acting.id and not super_admin:
        raise ResourceNotFound("Tenant not found.", code="TENANT_NOT_FOUND")
    tenant = Tenant.objects.filter(id=tenant_id).first()
    if tenant is None:
        raise ResourceNotFound("Tenant not found.", code="TENANT_NOT_FOUND")
    return tenant


def audit_entries(*, tenant_id: uuid.UUID, filters: dict):
    """A tenant's audit entries, newest first, narrowed by the given filters."""
    entries = AuditEntry.objects.filter(tenant_id=tenant_id)
    exact = {
        "action": "action",
        "category": "category",
        "status": "status",
        "actorId": "actor_id",
        "resourceType": "resource_type",
    }
    for name, column in exact.items():
        if filters.get(name):
            entries = entries.filter(**{column: filters[name]})
    if filters.get("from"):
        entries = entries.filter(timestamp__gte=filters["from"])
    if filters.get("to"):
        entries = entries.filter(timestamp__lte=filters["to"])
    return entries.order_by("-timestamp", "-seq")
