"""Writes of adminops, one module per area; the foundation's names stay importable from here."""

from adminops.services.identity import (
    api_key_create,
    auth_login,
    auth_refresh,
    tenant_create,
    tenant_user_create,
)

__all__ = ["api_key_create", "auth_login", "auth_refresh", "tenant_create", "tenant_user_create"]
