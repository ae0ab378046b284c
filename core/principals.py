"""Who is calling: one shape for a user, an API key, an OAuth client or a service account.

Authentication classes put a `Principal` in `request.auth`; tenancy and permission checks read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from uuid import UUID


@dataclass(frozen=True, slots=True)
class Principal:
    kind: str  # "user" | "realm_user" | "api_key" | "oauth_client" | "service_account"
    id: str
    name: str
    email: str = ""
    tenant_id: UUID | None = None  # machine principals belong to exactly one tenant
    scopes: frozenset[str] = field(default_factory=frozenset)
    tool_patterns: tuple[str, ...] = ()
    is_super_admin: bool = False
    # An API key's pinned connections, ((domain, "conn_<hex>"), ...): tool routing (named-endpoints 8.1).
    pinned: tuple[tuple[str, str], ...] = ()
    obj: object = None  # the User, ApiKey, ... behind it (None for a realm user: no row)
    # A realm user's roles in `tenant_id`, mapped from its token's roles claim (DESIGN section 17).
    realm_roles: frozenset[str] = frozenset()
    realm: str = ""  # the identity realm's name, for a realm user
    # A realm user's groups as its token's groups claim names them (DESIGN section 19).
    realm_groups: frozenset[str] = frozenset()
    # The person an OAuth token acts for (a user who allowed the client): its calls are theirs.
    user_id: str = ""
    username: str = ""

    @classmethod
    def of_user(cls, user) -> Principal:
        """A person: JWT logins and the Django admin's staff."""
        return cls(
            kind="user",
            id=str(user.id),
            name=user.display_name,
            email=user.email,
            is_super_admin=user.is_superuser,
            obj=user,
        )

    @classmethod
    def of_api_key(cls, key) -> Principal:
        return cls(
            kind="api_key",
            id=str(key.id),
            name=key.name,
            tenant_id=key.tenant_id,
            scopes=frozenset(key.scopes),
            tool_patterns=tuple(key.tool_patterns),
            pinned=tuple(sorted((key.connections or {}).items())),
            obj=key,
        )

    @property
    def is_authenticated(self) -> bool:  # DRF's IsAuthenticated reads this on request.user
        return True

    @property
    def is_user(self) -> bool:
        """A person: a user of this service, or a user of an identity realm (roles, not scopes)."""
        return self.kind in ("user", "realm_user")

    @property
    def is_person(self) -> bool:
        """A person calls, or a client acts for one: what they may read at the source applies."""
        return self.is_user or bool(self.user_id)

    @property
    def rate_key(self) -> str:
        """Whose calls these are: one client acting for two people is two callers."""
        return f"{self.kind}:{self.id}:{self.user_id}" if self.user_id else f"{self.kind}:{self.id}"

    def has_scope(self, wanted: str) -> bool:
        if "*" in self.scopes or wanted in self.scopes:
            return True
        area = wanted.split(":", 1)[0]
        return f"{area}:*" in self.scopes

    def may_run_tool(self, tool_key: str) -> bool:
        if not self.has_scope("tools:execute"):
            return False
        return not self.tool_patterns or any(fnmatchcase(tool_key, p) for p in self.tool_patterns)

    def pinned_connection(self, domain: str) -> str | None:
        """The connection this principal is pinned to for `domain`'s tools, if any."""
        return dict(self.pinned).get(domain)

    def as_actor(self, ip_address: str | None = None) -> dict:
        actor = {
            "type": self.kind,
            "id": self.id,
            "name": self.name,
            "email": self.email,
            "ipAddress": ip_address,
        }
        if self.user_id:
            actor["user"] = {"id": self.user_id, "username": self.username}
        return actor | {"realm": self.realm} if self.realm else actor
