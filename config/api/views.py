"""Base views. Every API endpoint is a `TenantAPIView` (scoped to the request's tenant) or a
`PublicAPIView` (health, token endpoints): `tests/test_every_api_view_is_scoped.py` holds that line.

The order of checks in a tenant view: authentication (401) → tenant (400/403) → rate limit (429)
→ operation access (403), then the handler. Who the tenant is, and what an operation needs, belong
to the identity app: the resolver is named in settings (`API_TENANT_RESOLVER`), and a view's
`access` is an object with a `check(ctx)` method.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from django.conf import settings
from django.utils.module_loading import import_string
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSet

from config.api.envelopes import envelope
from config.api.errors import Forbidden, RateLimited
from config.api.pagination import page_request, paginate
from config.api.ratelimit import Bucket, principal_rate, rate_limit_hit, tenant_rate


@cache
def tenant_resolver():
    """`resolve(request, principal) -> ctx` with `ctx.tenant` and `ctx.principal` (raises 400/403)."""
    return import_string(settings.API_TENANT_RESOLVER)


def rate_limit_count(request, ctx, *, usage: bool = True) -> None:
    """Count an authenticated request in its tenant's and its principal's buckets (429 when spent)
    and, with `usage`, in the usage counters of `ctx.usage_tally(request)`, in one round trip. The
    state is kept on the request for the X-RateLimit-* headers, and the response is marked counted
    so that the usage middleware counts only its failure."""
    buckets = [
        Bucket("tenant", str(ctx.tenant.id), tenant_rate()),
        Bucket("principal", ctx.principal.rate_key, principal_rate()),
    ]
    request.usage_counted = usage
    try:
        request.rate_state = rate_limit_hit(buckets, tally=ctx.usage_tally(request) if usage else None)
    except RateLimited as exc:
        request.rate_state = exc.rate_state
        raise


class RateLimitHeadersMixin:
    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        state = getattr(request, "rate_state", None)
        if state is not None:
            state.apply(response)
        response.usage_counted = getattr(request, "usage_counted", False)
        return response


class TenantAPIView(RateLimitHeadersMixin, APIView):
    permission_classes = [IsAuthenticated]
    # Access needed (an object with `check(ctx)`), for the whole view or per HTTP method
    # ({"GET": VAULT_READ, "POST": VAULT_WRITE}).
    access: object

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # negotiation, authentication, IsAuthenticated (401)
        self.ctx = self.tenant_context(request)
        try:  # 429 before 403; a call refused here is not a use of the API
            self.required_access(request.method).check(self.ctx)
        except Forbidden:
            rate_limit_count(request, self.ctx, usage=False)
            raise
        rate_limit_count(request, self.ctx)

    def tenant_context(self, request):
        """The request's tenant and principal (400/403): a view may default the tenant, never skip it."""
        return tenant_resolver()(request, request.auth)

    @property
    def tenant(self):
        return self.ctx.tenant

    @property
    def principal(self):
        return self.ctx.principal

    def required_access(self, method: str):
        access = self.access
        if isinstance(access, dict):
            return access.get(method) or access["GET"]
        return access


# A resource collection served by a router: a TenantAPIView whose `access` is one object, or a dict
# keyed by action (`list`, `retrieve`, `rotate`...); an `@action(access=...)` sets its own. A method
# the route does not serve (and OPTIONS) needs the access of the route's GET, or of its one action,
# and then answers 405: the order of checks of a plain view. (A comment, not a docstring:
# drf-spectacular would show a docstring as every operation's description.)
class TenantViewSet(ViewSet, TenantAPIView):
    def required_access(self, method: str):
        access = self.access
        if not isinstance(access, dict):
            return access
        action = self.action if self.action in access else None
        if action is None:
            action = self.action_map.get("get") or next(iter(self.action_map.values()))
        return access[action]

    def page(self, queryset, name: str, shape: Callable[[object], dict]) -> Response:
        """One page of `queryset` as `{name: [...], pagination}` (DESIGN section 4)."""
        items, pagination = paginate(queryset, page_request(self.request))
        return envelope({name: [shape(item) for item in items], "pagination": pagination})


class PublicAPIView(APIView):
    """No authentication: health checks and the token endpoints. Listed on purpose."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
