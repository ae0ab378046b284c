"""Base views. Every API endpoint is a `TenantAPIView` (scoped to the request's tenant) or a
`PublicAPIView` (health, token endpoints): `tests/test_every_api_view_is_scoped.py` holds that line.

The order of checks in a tenant view: authentication (401) → tenant (400/403, core.tenancy) → rate
limit (429) → operation access (403, core.access), then the handler.
"""

from __future__ import annotations

from collections.abc import Callable

from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.viewsets import ViewSet

from core.access import Access, ReadWrite
from core.api.envelopes import envelope
from core.api.errors import Forbidden, RateLimited
from core.api.pagination import page_request, paginate
from core.api.ratelimit import Bucket, principal_rate, rate_limit_hit, tenant_rate
from core.audit import client_ip
from core.tenancy import tenant_resolve
from core.usage import usage_tally


def rate_limit_count(request, ctx, *, usage: bool = True) -> None:
    """Count an authenticated request in its tenant's and its principal's buckets (429 when spent)
    and, with `usage`, in the usage counters (core.usage), in one round trip. The
    state is kept on the request for the X-RateLimit-* headers, and the response is marked counted
    so that the usage middleware counts only its failure."""
    buckets = [
        Bucket("tenant", str(ctx.tenant.id), tenant_rate()),
        Bucket("principal", ctx.principal.rate_key, principal_rate()),
    ]
    request.usage_counted = usage
    try:
        tally = None
        if usage:
            tally = usage_tally(principal=ctx.principal, tenant_id=str(ctx.tenant.id), ip=client_ip(request))
        request.rate_state = rate_limit_hit(buckets, tally=tally)
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
    # Access needed (core.access): one for the whole view, a ReadWrite map, or one per HTTP method
    # ({"GET": VAULT_READ, "POST": VAULT_WRITE}).
    access: Access | ReadWrite | dict

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
        return tenant_resolve(request, request.auth)

    @property
    def tenant(self):
        return self.ctx.tenant

    @property
    def principal(self):
        return self.ctx.principal

    def required_access(self, method: str) -> Access:
        access = self.access
        if isinstance(access, ReadWrite):
            return access.of(method)
        if isinstance(access, dict):
            return access.get(method) or access["GET"]
        return access


# A resource collection served by a router: a TenantAPIView whose `access` is one object, a
# ReadWrite map (by method, with its exceptions by action), or a dict keyed by action (`list`,
# `retrieve`, `rotate`...); an `@action(access=...)` sets its own. A method the route does not serve
# (and OPTIONS) needs the access of the route's GET, or of its one action, and then answers 405: the
# order of checks of a plain view. (A comment, not a docstring:
# drf-spectacular would show a docstring as every operation's description.)
class TenantViewSet(ViewSet, TenantAPIView):
    def required_access(self, method: str) -> Access:
        access = self.access
        if isinstance(access, ReadWrite):
            served = method.lower() in self.action_map and method != "OPTIONS"
            return access.of(method, self.action) if served else access.of("GET", self.action)
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


# No authentication: health checks and the token endpoints, listed on purpose in
# tests/test_every_api_view_is_scoped.py. (A comment: drf-spectacular would show a docstring as the
# description of every operation of its subclasses.)
class PublicAPIView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
