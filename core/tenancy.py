"""The tenant of a request, resolved once from `x-tenantid` and the principal (DESIGN section 3).

Order of answers: 401 (no or bad credentials, raised by authentication) before 400
`TENANT_REQUIRED` before 403 (a tenant the principal does not belong to).

A user's roles come from their memberships, read through the relation that identity's Membership
declares on the user (`user.memberships`): the ground floor reads them without importing identity.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from core.api.errors import Forbidden, InvalidParameter, TenantRequired
from core.models import Role, Tenant
from core.principals import Principal

# What each membership role includes (DESIGN section 3).
ROLE_INCLUDES: dict[str, frozenset[str]] = {
    Role.TENANT_ADMIN: frozenset(Role.values),
    Role.INTEGRATION_ADMIN: frozenset({Role.INTEGRATION_ADMIN, Role.INTEGRATION_VIEWER}),
    Role.INTEGRATION_VIEWER: frozenset({Role.INTEGRATION_VIEWER}),
    Role.AUDIT_VIEWER: frozenset({Role.AUDIT_VIEWER}),
    Role.APPROVER: frozenset({Role.APPROVER}),
}
SUPER_ADMIN = "super_admin"


@dataclass(frozen=True)
class TenantContext:
    tenant: Tenant
    principal: Principal
    roles: frozenset[str]  # effective roles of a user principal; empty for machine principals


def effective_roles(granted: list[str]) -> frozenset[str]:
    roles: set[str] = set()
    for role in granted:
        roles |= ROLE_INCLUDES.get(role, frozenset())
    return frozenset(roles)


def tenant_resolve(request, principal: Principal, *, own_tenant_default: bool = False) -> TenantContext:
    """The tenant named in `x-tenantid` for this principal (400 without it, 403 when the principal
    may not act there). `own_tenant_default`: an API key or OAuth client without the header acts in
    its own tenant (the MCP endpoint); a user still has to name one."""
    tenant_id = tenant_id_from(request)
    if tenant_id is None and own_tenant_default and not principal.is_user:
        tenant_id = principal.tenant_id
    if tenant_id is None:
        raise TenantRequired()
    if principal.kind == "realm_user":
        return _for_realm_user(principal, tenant_id)
    if principal.is_user:
        return _for_user(principal, tenant_id)
    if principal.tenant_id != tenant_id:
        raise Forbidden("This credential does not belong to the tenant named in x-tenantid.")
    tenant = getattr(principal.obj, "tenant", None) or Tenant.objects.filter(id=tenant_id).first()
    _require_active(tenant)
    return TenantContext(tenant=tenant, principal=principal, roles=frozenset())


def tenant_id_from(request) -> uuid.UUID | None:
    """The tenant named in `x-tenantid`: None when the header is absent, 400 when not a UUID."""
    raw = request.headers.get("x-tenantid", "").strip()
    if not raw:
        return None
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise InvalidParameter(
            "x-tenantid must be a tenant UUID.", details={"x-tenantid": "Not a UUID."}
        ) from None


def tenant_id_hint(request) -> uuid.UUID | None:
    """The tenant named in `x-tenantid` where it only guides (a login's audit chain, usage
    counters): None when absent or not a UUID."""
    try:
        return tenant_id_from(request)
    except InvalidParameter:
        return None


def _for_user(principal: Principal, tenant_id: uuid.UUID) -> TenantContext:
    if principal.is_super_admin:
        # A super admin acts in any tenant as its tenant_admin, without a membership (DESIGN 14).
        tenant = Tenant.objects.filter(id=tenant_id).first()
        if tenant is None:
            raise Forbidden("You are not a member of this tenant.")
        return TenantContext(tenant, principal, effective_roles([Role.TENANT_ADMIN]) | {SUPER_ADMIN})
    membership = principal.obj.memberships.select_related("tenant").filter(tenant_id=tenant_id).first()
    if membership is None:
        raise Forbidden("You are not a member of this tenant.")
    _require_active(membership.tenant)
    return TenantContext(membership.tenant, principal, effective_roles(membership.roles))


def _for_realm_user(principal: Principal, tenant_id: uuid.UUID) -> TenantContext:
    """An identity realm's user acts only in the realm's tenant, with the roles its token maps to;
    a token that maps to none of this service's roles is refused (DESIGN section 17)."""
    if principal.tenant_id != tenant_id:
        raise Forbidden("This identity realm belongs to another tenant.")
    if not principal.realm_roles:
        raise Forbidden("The token carries no role that this realm maps to a role of this service.")
    tenant = Tenant.objects.filter(id=tenant_id).first()
    _require_active(tenant)
    return TenantContext(tenant, principal, effective_roles(list(principal.realm_roles)))


def _require_active(tenant: Tenant | None) -> None:
    if tenant is None or tenant.status != Tenant.Status.ACTIVE:
        raise Forbidden("This tenant is not active.", code="TENANT_INACTIVE")
