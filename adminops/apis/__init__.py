"""HTTP views of adminops, one module per area; the foundation's names stay importable from here."""

from adminops.apis.identity import (
    AdminHealthApi,
    ApiHealthApi,
    AuthTokenApi,
    AuthTokenRefreshApi,
    HealthApi,
    _login_rate_limit,
)

__all__ = [
    "AdminHealthApi",
    "ApiHealthApi",
    "AuthTokenApi",
    "AuthTokenRefreshApi",
    "HealthApi",
    "_login_rate_limit",
]
