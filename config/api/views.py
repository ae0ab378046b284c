"""Base views. Every API endpoint is a `TenantAPIView` (scoped to the request's tenant) or a
`PublicAPIView` (health, token endpoints): `tests/test_every_api_view_is_scoped.py` holds that line.

The order of checks in a tenant view: authentication (401) → tenant (400/403) → rate limit (429)
→ operation access (403), then the handler.
"""

from __future__ import annotations

from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.views import APIView

from adminops.access import Access
from adminops.tenancy import TenantContext, tenant_resolve
from config.api.ratelimit import Bucket, principal_rate, rate_limit_hit, tenant_rate


def rate_limit_count(request, ctx: TenantContext) -> None:
    """Count an authenticated request in its tenant's and its principal's buckets (429 when spent);
    the state is kept on the request for the X-RateLimit-* headers."""
    buckets = [
        Bucket("tenant", str(ctx.tenant.id), tenant_rate()),
        Bucket("principal", ctx.principal.rate_key, principal_rate()),
    ]
    try:
        request.rate_state = rate_limit_hit(request._request, buckets)
    except Exception as exc:
        request.rate_state = getattr(exc, "rate_state", None)
        raise


class RateLimitHeadersMixin:
    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        state = getattr(request, "rate_state", None)
        if state is not None:
            state.apply(response)
        return response


class TenantAPIView(RateLimitHeadersMixin, APIView):
    permission_classes = [IsAuthenticated]
    # Access needed, for the whole view or per HTTP method ({"GET": VAULT_READ, "POST": VAULT_WRITE}).
    access: Access | dict[str, Access]

    ctx: TenantContext

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # negotiation, authentication, IsAuthenticated (401)
        self.ctx = tenant_resolve(request, request.auth)
        request.tenant_ctx = self.ctx
        rate_limit_count(request, self.ctx)
        self.required_access(request.method).check(self.ctx)

    @property
    def tenant(self):
        return self.ctx.tenant

    @property
    def principal(self):
        return self.ctx.principal

    def required_access(self, method: str) -> Access:
        access = self.access
        if isinstance(access, dict):
            return access.get(method) or access["GET"]
        return access


class PublicAPIView(APIView):
    """No authentication: health checks and the token endpoints. Listed on purpose."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
