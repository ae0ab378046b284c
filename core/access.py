"""What an operation needs (DESIGN section 3): a membership role for users, a scope for machines."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from core.api.errors import Forbidden
from core.tenancy import SUPER_ADMIN, TenantContext

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


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
        if not self.machines:
            raise Forbidden(
                "Only a person may do this: sign in as a user with the "
                f"{self.role} role; an API key, OAuth client or service account cannot."
            )
        if self.scope is None or principal.has_scope(self.scope):
            return
        raise Forbidden(f"This credential lacks the {self.scope} scope.")


@dataclass(frozen=True)
class ReadWrite:
    """The access map of a resource collection, written once: reading (GET, HEAD, OPTIONS) needs
    `read`, anything else `write`, but for the actions named in `exceptions`."""

    read: Access
    write: Access
    exceptions: Mapping[str, Access] = field(default_factory=lambda: MappingProxyType({}))

    def but(self, **actions: Access) -> ReadWrite:
        return replace(self, exceptions=MappingProxyType({**self.exceptions, **actions}))

    def of(self, method: str, action: str | None = None) -> Access:
        if action in self.exceptions:
            return self.exceptions[action]
        return self.read if method in SAFE_METHODS else self.write


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
# API keys, OAuth clients, realms, the tenant's own settings (DESIGN section 3).
ADMIN = ReadWrite(ADMIN_READ, ADMIN_WRITE)
SUPER_ADMIN_ONLY = Access(SUPER_ADMIN, None, machines=False)
TOOLS_READ = ANY_MEMBER
APPROVE = Access("approver", None, machines=False)
