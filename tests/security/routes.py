"""Every route of the URL conf with its HTTP methods, and what DESIGN section 3 says each needs.

`REQUIRES` is written from the design, not read from the views: a new route (or method) without an
entry fails tests/security/test_role_matrix.py, and a view whose access differs from its entry
fails it too.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.urls import URLPattern, URLResolver, get_resolver


@dataclass(frozen=True)
class Need:
    """A membership role for users (None: users never) and a scope for machines (None: never)."""

    role: str | None
    scope: str | None
    public: bool = False


PUBLIC = Need(None, None, public=True)
ANY_MEMBER = Need("*", "*any")  # any principal of the tenant
VAULT_READ = Need("integration_viewer", "vault:read")
VAULT_WRITE = Need("integration_admin", "vault:write")
VAULT_SECRETS = Need("integration_admin", "vault:secrets")
KNOWLEDGE = Need("integration_admin", "knowledge:read")
KNOWLEDGE_VIEW = Need("integration_viewer", "knowledge:read")  # ingestion status, knowledge search
KNOWLEDGE_WRITE = Need("integration_admin", "knowledge:write")  # uploads, ingest, deletes
ADMIN_READ = Need("tenant_admin", "admin:read")
ADMIN_WRITE = Need("tenant_admin", "admin:write")
AUDIT = Need("audit_viewer", "admin:read")
SUPER = Need("super_admin", None)
# The tool hub (DESIGN section 9 leaves these to docs/toolhub.md): viewing connections needs the
# viewer role or tools:read, changing them the integration admin or vault:write (they name a
# credential); the approval queue is for approvers (and the machines that raised the requests).
CONNECTIONS_READ = Need("integration_viewer", "tools:read")
CONNECTIONS_WRITE = Need("integration_admin", "vault:write")
APPROVALS_READ = Need("approver", "tools:execute")
DECIDE = Need("approver", None)
EXECUTE = Need(None, "tools:execute")  # machines only; the tool's patterns narrow it further

REQUIRES: dict[tuple[str, str], Need] = {
    ("health", "GET"): PUBLIC,
    ("api/v1/auth/token", "POST"): PUBLIC,
    ("api/v1/auth/token/refresh", "POST"): PUBLIC,
    ("api/v1/health", "GET"): PUBLIC,
    ("api/v1/admin/health", "GET"): PUBLIC,  # status for anyone, details after a role check
    ("api/v1/api-keys", "GET"): ADMIN_READ,
    ("api/v1/api-keys", "POST"): ADMIN_WRITE,
    ("api/v1/api-keys/{key_id}", "GET"): ADMIN_READ,
    ("api/v1/api-keys/{key_id}", "PATCH"): ADMIN_WRITE,
    ("api/v1/api-keys/{key_id}", "DELETE"): ADMIN_WRITE,
    ("api/v1/api-keys/{key_id}/rotate", "POST"): ADMIN_WRITE,
    ("api/v1/api-keys/{key_id}/validate", "POST"): ADMIN_READ,
    ("api/v1/api-key/validate", "POST"): PUBLIC,
    ("api/v1/oauth-clients", "GET"): ADMIN_READ,
    ("api/v1/oauth-clients", "POST"): ADMIN_WRITE,
    ("api/v1/oauth-clients/{oauth_client_id}", "GET"): ADMIN_READ,
    ("api/v1/oauth-clients/{oauth_client_id}", "PATCH"): ADMIN_WRITE,
    ("api/v1/oauth-clients/{oauth_client_id}", "DELETE"): ADMIN_WRITE,
    ("api/v1/oauth-clients/{oauth_client_id}/rotate-secret", "POST"): ADMIN_WRITE,
    ("api/v1/admin/service-account/create", "POST"): ADMIN_WRITE,
    ("api/v1/admin/tenants/{tenant_id}", "GET"): ADMIN_READ,
    ("api/v1/admin/tenants/{tenant_id}", "PATCH"): ADMIN_WRITE,
    ("api/v1/admin/tenants/{tenant_id}", "DELETE"): SUPER,
    ("api/v1/admin/tenants/{tenant_id}/stats", "GET"): ADMIN_READ,
    ("api/v1/admin/realms", "GET"): ADMIN_READ,
    ("api/v1/admin/realms", "POST"): ADMIN_WRITE,
    ("api/v1/admin/realms/{realm_id}", "GET"): ADMIN_READ,
    ("api/v1/admin/realms/{realm_id}", "PATCH"): ADMIN_WRITE,
    ("api/v1/admin/realms/{realm_id}", "DELETE"): ADMIN_WRITE,
    ("api/v1/admin/audit-logs", "GET"): AUDIT,
    ("api/v1/admin/jobs/trigger", "POST"): SUPER,
    ("api/v1/admin/jobs/{job_name}/stats", "GET"): SUPER,
    ("oauth/token", "POST"): PUBLIC,
    ("oauth/revoke", "POST"): PUBLIC,  # client authentication is the request itself (RFC 7009)
    ("oauth/introspect", "POST"): PUBLIC,  # likewise (RFC 7662)
    ("oauth/authorize", "GET"): PUBLIC,  # the consent page: a browser session, sign-in first
    ("oauth/authorize", "POST"): PUBLIC,
    ("oauth/authorize", "PUT"): PUBLIC,  # Django's form views take PUT as POST
    ("oauth/login", "GET"): PUBLIC,
    ("oauth/login", "POST"): PUBLIC,
    ("oauth/login", "PUT"): PUBLIC,
    ("oauth/register", "POST"): PUBLIC,  # RFC 7591: a client without an account, rate limited per address
    (".well-known/oauth-authorization-server", "GET"): PUBLIC,  # discovery: RFC 8414
    (".well-known/openid-configuration", "GET"): PUBLIC,
    (".well-known/oauth-protected-resource/mcp", "GET"): PUBLIC,  # RFC 9728
    ("api/v1/credentials", "GET"): VAULT_READ,
    ("api/v1/credentials", "POST"): VAULT_WRITE,
    ("api/v1/credentials/{integration_id}/details", "GET"): VAULT_READ,
    ("api/v1/credentials/{credential_id}/rotate", "POST"): VAULT_WRITE,
    ("api/v1/credentials/{integration_id}/{credential_id}", "PATCH"): VAULT_WRITE,
    ("api/v1/credentials/{integration_id}/{credential_id}", "DELETE"): VAULT_WRITE,
    ("api/v1/credentials/{integration_id}", "GET"): VAULT_SECRETS,
    ("api/v1/admin/dek/rotate", "POST"): SUPER,
    ("api/v1/admin/dek/rotations/{rotation_id}", "GET"): SUPER,
    ("v2/cloudstore/failed-files", "POST"): KNOWLEDGE,
    ("v2/sitelib/listing", "POST"): KNOWLEDGE,
    ("v2/wikispace/space-listing", "POST"): KNOWLEDGE,
    ("v2/itsmplatform/kb-listing", "POST"): KNOWLEDGE,
    ("v2/knowledge/search", "POST"): KNOWLEDGE_VIEW,
    ("v2/knowledge/source-rules", "GET"): KNOWLEDGE_VIEW,
    ("v2/knowledge/source-rules", "POST"): KNOWLEDGE_WRITE,
    ("v2/knowledge/source-rules/{rule_id}", "DELETE"): KNOWLEDGE_WRITE,
    ("v2/sitelib/upload", "POST"): KNOWLEDGE_WRITE,
    ("v2/sitelib/ingest", "POST"): KNOWLEDGE_WRITE,
    ("v2/wikispace/ingest", "POST"): KNOWLEDGE_WRITE,
    ("v2/itsmplatform/ingest", "POST"): KNOWLEDGE_WRITE,
    ("v2/sitelib/status", "GET"): KNOWLEDGE_VIEW,
    ("v2/sitelib/delete", "POST"): KNOWLEDGE_WRITE,
    ("v2/sitelib/sources", "DELETE"): KNOWLEDGE_WRITE,
    ("v2/wikispace/upload", "POST"): KNOWLEDGE_WRITE,
    ("v2/wikispace/status", "GET"): KNOWLEDGE_VIEW,
    ("v2/wikispace/delete", "POST"): KNOWLEDGE_WRITE,
    ("v2/itsmplatform/upload", "POST"): KNOWLEDGE_WRITE,
    ("v2/itsmplatform/kb-upload", "POST"): KNOWLEDGE_WRITE,
    ("v2/itsmplatform/kb-status", "GET"): KNOWLEDGE_VIEW,
    ("v2/itsmplatform/delete", "POST"): KNOWLEDGE_WRITE,
    ("v2/itsmplatform/kb-delete", "POST"): KNOWLEDGE_WRITE,
    ("v2/cloudstore/retry-failed", "POST"): KNOWLEDGE_WRITE,
    ("v2/sync-configurations", "GET"): KNOWLEDGE_VIEW,
    ("v2/sync-configurations/{configuration_id}", "GET"): KNOWLEDGE_VIEW,
    ("v2/sync-configurations/{configuration_id}", "PATCH"): KNOWLEDGE_WRITE,
    ("v2/sync-configurations/{configuration_id}", "DELETE"): KNOWLEDGE_WRITE,
    ("v2/sync-configurations/{configuration_id}/stop", "POST"): KNOWLEDGE_WRITE,
    ("v2/sync-configurations/{configuration_id}/permissions-sync", "POST"): KNOWLEDGE_WRITE,
    ("api/v1/tools", "GET"): ANY_MEMBER,
    ("api/v1/tools/{tool_key}", "GET"): ANY_MEMBER,
    ("api/v1/tools/{tool_key}/execute", "POST"): EXECUTE,
    ("api/v1/connections", "GET"): CONNECTIONS_READ,
    ("api/v1/connections", "POST"): CONNECTIONS_WRITE,
    ("api/v1/connections/{connection_id}", "GET"): CONNECTIONS_READ,
    ("api/v1/connections/{connection_id}", "PATCH"): CONNECTIONS_WRITE,
    ("api/v1/connections/{connection_id}", "DELETE"): CONNECTIONS_WRITE,
    ("api/v1/connections/{connection_id}/test", "POST"): CONNECTIONS_WRITE,
    ("api/v1/approvals", "GET"): APPROVALS_READ,
    ("api/v1/approvals/{approval_id}", "GET"): APPROVALS_READ,
    ("api/v1/approvals/{approval_id}/approve", "POST"): DECIDE,
    ("api/v1/approvals/{approval_id}/reject", "POST"): DECIDE,
    ("mcp", "POST"): Need(None, "*any"),  # machines of the tenant; tools/list shows what each may call
    ("api/schema/", "GET"): PUBLIC,
    ("api/docs/", "GET"): PUBLIC,
    ("api/redoc/", "GET"): PUBLIC,
}

# Path ids that are well formed but name nothing: access is decided before the lookup.
PLACEHOLDERS = {
    "key_id": lambda: str(uuid.uuid4()),
    "oauth_client_id": lambda: f"client-{uuid.uuid4()}",
    "tenant_id": lambda: str(uuid.uuid4()),
    "realm_id": lambda: f"realm-{uuid.uuid4()}",
    "job_name": lambda: "tokenExpiry",
    "integration_id": lambda: "no-such-integration",
    "credential_id": lambda: f"cred-{uuid.uuid4()}",
    "rotation_id": lambda: str(uuid.uuid4()),
    "tool_key": lambda: "itdocs.organization.list",  # a real tool: permission is checked after lookup
    "connection_id": lambda: f"conn_{uuid.uuid4().hex}",
    "approval_id": lambda: str(uuid.uuid4()),
    "rule_id": lambda: f"srule-{uuid.uuid4()}",
    "configuration_id": lambda: f"scfg-{uuid.uuid4()}",
}


def _walk(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.app_name == "admin":
                continue  # the Django admin: staff sessions, tested in the apps
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def api_routes() -> list[tuple[str, str, type]]:
    """(template with {name} parameters, METHOD, view class) for every routed view method."""
    found = []
    for route, callback in _walk(get_resolver().url_patterns):
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        if view is None:
            continue  # the JSON catch-all 404 (tests/test_every_api_view_is_scoped.py holds it)
        template = route.replace("<str:", "{").replace(">", "}")
        # A ViewSet's route serves the methods bound to it (`actions`), not those of its class.
        actions = getattr(callback, "actions", None)
        methods = actions or [m for m in view.http_method_names if hasattr(view, m)]
        for method in methods:
            if method not in ("options", "head"):
                found.append((template, method.upper(), view))
    return found


def fill(template: str) -> str:
    path = template
    for name, make in PLACEHOLDERS.items():
        path = path.replace("{" + name + "}", make())
    assert "{" not in path, f"no placeholder for a parameter of {template}"
    return "/" + path
