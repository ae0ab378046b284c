"""What an operation needs (DESIGN section 3): a membership role for users, a scope for machines."""

from __future__ import annotations

from dataclasses import dataclass

from adminops.tenancy import SUPER_ADMIN, TenantContext
from config.api.errors import Forbidden


@dataclass(frozen=True)
class Access:
    role: str | None  # membership role a user needs; None: users may not
    scope: str | None  # scope a machine principal needs; None: machines may not
    users: bool = True
    machines: bool = True

    def check(self, ctx: TenantContext) -> None:
        principal = ctx.principal
        if principal.is_user:
            if self.users and (self.role is None or self.role in ctx.roles or SUPER_ADMIN in ctx.roles):
                return
            raise Forbidden(f"This operation needs the {self.role or 'machine'} role.")
        if self.machines and (self.scope is None or principal.has_scope(self.scope)):
            return
        raise Forbidden(f"This credential lacks the {self.scope or 'user'} scope.")


ANY_MEMBER = Access(role=None, scope=None)
VAULT_READ = Access("integration_viewer", "vault:read")
VAULT_WRITE = Access("integration_admin", "vault:write")
VAULT_SECRETS = Access("integration_admin", "vault:secrets")
KNOWLEDGE_READ = Access("integration_admin", "knowledge:read")
KNOWLEDGE_WRITE = Access("integration_admin", "knowledge:write")
# Ingestion status and knowledge search: what a viewer may see (DESIGN section 3).
KNOWLEDGE_VIEW = Access("integration_viewer", "knowledge:read")
ADMIN_READ = Access("tenant_admin", "admin:read")
ADMIN_WRITE = Access("tenant_admin", "admin:write")
AUDIT_READ = Access("audit_viewer", "admin:read")
SUPER_ADMIN_ONLY = Access(SUPER_ADMIN, None, machines=False)
TOOLS_READ = ANY_MEMBER
APPROVE = Access("approver", None, machines=False)
