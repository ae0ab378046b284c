"""The console's first page (`/admin/`): the panels apps register (core.dashboard), rendered for
the tenants where the signed-in user holds one of their roles (superusers: every tenant)."""

from __future__ import annotations

import uuid

from django.utils import timezone

from core.console import console_tenant_ids
from core.dashboard import Scope, registered_panels
from core.models import Tenant

TENANTS_LISTED = 500  # in the tenant picker; a superuser past this many picks by URL


def dashboard(request) -> dict:
    """The dashboard's context: the tenant picker and the panels this user may see."""
    user = request.user
    every_role = frozenset().union(*(roles for _, roles in registered_panels()))
    visible = None if user.is_superuser else console_tenant_ids(request, every_role)
    tenants = Tenant.objects.order_by("name").values_list("id", "name")
    if visible is not None:
        tenants = tenants.filter(id__in=visible)
    names = dict(tenants[:TENANTS_LISTED])
    chosen = _chosen_tenant(request, visible)
    panels = []
    for function, roles in registered_panels():
        tenant_ids = _panel_tenants(request, roles, visible, chosen)
        if tenant_ids is not None and not tenant_ids:
            continue
        panel = function(Scope(request, tenant_ids, names, timezone.now()))
        if panel is not None:
            panels.append(panel)
    return {"panels": panels, "tenants": list(names.items()), "chosen": chosen}


def _chosen_tenant(request, visible: set[uuid.UUID] | None) -> uuid.UUID | None:
    try:
        chosen = uuid.UUID(request.GET.get("tenant", ""))
    except ValueError:
        return None
    return chosen if visible is None or chosen in visible else None


def _panel_tenants(request, roles, visible, chosen) -> set[uuid.UUID] | None:
    if visible is None:
        return None if chosen is None else {chosen}
    allowed = console_tenant_ids(request, roles)
    return allowed & {chosen} if chosen is not None else allowed
