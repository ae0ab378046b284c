"""Base views. Every API endpoint is a `TenantAPIView` (scoped to the request's tenant) or a
`PublicAPIView` (health, token endpoints): `tests/test_every_api_view_is_scoped.py` holds that line.

The order of checks in a tenant view: authentication (401) → tenant (400/403) → rate limit (429)
→ operation access (403), then the handler.
"""

from __future__ import annotations

from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.views import APIView

from adminops.access import Access
from adminops.authcache import GENERATION_KEY, forget, generation_is
from adminops.authentication import UNCONFIRMED
from adminops.tenancy import TenantContext, tenant_resolve
from config.api.errors import ApiError
from config.api.ratelimit import Bucket, Stale, principal_rate, rate_limit_hit, tenant_rate


def rate_limit_count(request, ctx: TenantContext, *, guard=None) -> None:
    """Count an authenticated request in its tenant's and its principal's buckets (429 when spent);
    the state is kept on the request for the X-RateLimit-* headers. With `guard`, Stale (nothing
    counted) unless the guard holds (config.api.ratelimit)."""
    buckets = [
        Bucket("tenant", str(ctx.tenant.id), tenant_rate()),
        Bucket("principal", ctx.principal.rate_key, principal_rate()),
    ]
    try:
        request.rate_state = rate_limit_hit(request._request, buckets, guard=guard)
    except Stale:
        raise
    except Exception as exc:
        request.rate_state = getattr(exc, "rate_state", None)
        raise


def _authenticate_again(request) -> None:
    django_request = request._request
    forget(getattr(django_request, UNCONFIRMED)[1])
    django_request.recheck = True  # adminops.authentication: no remembered key this time
    request._authenticate()  # DRF's own step (sets request.user and request.auth, or raises 401)


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
    # An API key may come from the process's memory of the lookup cache (adminops.authcache): this
    # view confirms its generation in the rate limiter's call, before counting or answering.
    confirms_remembered_keys = True

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # negotiation, authentication, IsAuthenticated (401)
        try:
            self._resolve_and_count(request)
        except Stale:
            # The remembered key has changed since (revoked, rotated, its tenant suspended...), and
            # nothing was counted: authenticate again from the cache or the database.
            _authenticate_again(request)
            self._resolve_and_count(request)
        self.required_access(request.method).check(self.ctx)

    def _resolve_and_count(self, request) -> None:
        unconfirmed = getattr(request._request, UNCONFIRMED, None)
        guard = None if unconfirmed is None else (GENERATION_KEY, unconfirmed[0])
        try:
            self.ctx = tenant_resolve(request, request.auth)
        except ApiError:
            if guard is not None and not generation_is(guard[1]):
                raise Stale() from None  # refused on an outdated row: decide again
            raise
        request.tenant_ctx = self.ctx
        rate_limit_count(request, self.ctx, guard=guard)

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
