"""This service's scopes (DESIGN section 3), how request bodies spell them, and what they permit."""

from __future__ import annotations

SCOPES: tuple[str, ...] = (
    "vault:read",
    "vault:write",
    "vault:secrets",
    "knowledge:read",
    "knowledge:write",
    "knowledge:all",
    "tools:read",
    "tools:execute",
    "admin:read",
    "admin:write",
    "*",
)
_AREAS: dict[str, tuple[str, ...]] = {}
for _scope in SCOPES:
    if _scope != "*":
        _area, _verb = _scope.split(":")
        _AREAS.setdefault(_area, ())
        _AREAS[_area] += (_verb,)
AREA_WILDCARDS = tuple(f"{area}:*" for area in _AREAS)
# What a client that registered itself may ask a person for, by name: any scope but the wildcards.
REGISTRABLE_SCOPES: tuple[str, ...] = tuple(scope for scope in SCOPES if scope != "*")

# Service-account permissions (named-endpoints 6.8) mapped onto this service's scopes. Neither
# includes admin or decrypted-secret access: those stay with people and purpose-made API keys.
SERVICE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    "api:read": ("vault:read", "knowledge:read", "tools:read"),
    "api:write": ("vault:write", "knowledge:write", "tools:execute"),
}
DEFAULT_SERVICE_PERMISSIONS = ["api:read", "api:write"]


def split_list(value) -> list[str]:
    """An array, or a comma-separated string, as a list of trimmed, non-empty, unique items."""
    items = value.split(",") if isinstance(value, str) else list(value or [])
    seen: list[str] = []
    for item in items:
        text = str(item).strip()
        if text and text not in seen:
            seen.append(text)
    return seen


def unknown_scopes(scopes: list[str]) -> list[str]:
    return [s for s in scopes if s not in SCOPES and s not in AREA_WILDCARDS]


def permissions_of(scopes: list[str]) -> dict[str, dict[str, bool]]:
    """Per-area booleans, e.g. {"vault": {"read": True, "write": False, "secrets": False}, ...}."""
    granted = set(scopes)
    return {
        area: {
            verb: "*" in granted or f"{area}:*" in granted or f"{area}:{verb}" in granted for verb in verbs
        }
        for area, verbs in _AREAS.items()
    }


def service_scopes(permissions: list[str]) -> list[str]:
    scopes: list[str] = []
    for permission in permissions:
        for scope in SERVICE_PERMISSIONS.get(permission, ()):
            if scope not in scopes:
                scopes.append(scope)
    return scopes


# What a user's membership roles allow an application acting for them (an authorization-code
# token): a tenant admin allows every scope; the others allow their areas' scopes, never a wildcard.
ROLE_SCOPES: dict[str, tuple[str, ...]] = {
    "integration_admin": (
        "vault:read",
        "vault:write",
        "vault:secrets",
        "knowledge:read",
        "knowledge:write",
        "tools:read",
        "tools:execute",
    ),
    "integration_viewer": ("vault:read", "knowledge:read", "tools:read"),
}


def scopes_within_roles(scopes: list[str], roles: list[str]) -> list[str]:
    if "tenant_admin" in roles:
        return list(scopes)
    allowed = {scope for role in roles for scope in ROLE_SCOPES.get(role, ())}
    return [scope for scope in scopes if scope in allowed]
