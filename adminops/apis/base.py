"""The base of adminops' resource collections: a tenant-scoped DRF ViewSet served by a router."""

from __future__ import annotations

from collections.abc import Callable

from rest_framework.response import Response
from rest_framework.viewsets import ViewSet

from adminops.access import Access
from config.api.envelopes import envelope
from config.api.pagination import page_request, paginate
from config.api.views import TenantAPIView


# A TenantAPIView whose `access` is keyed by action (`list`, `retrieve`, `rotate`...). A method its
# route does not serve (and OPTIONS) needs the access of the route's GET, or of the route's one
# action, and then answers 405: the same order of checks as a plain view. (A comment, not a
# docstring: drf-spectacular would show a docstring as every action's description.)
class TenantViewSet(ViewSet, TenantAPIView):
    access: dict[str, Access]

    def required_access(self, method: str) -> Access:
        action = self.action if self.action in self.access else None
        if action is None:
            action = self.action_map.get("get") or next(iter(self.action_map.values()))
        return self.access[action]

    def page(self, queryset, name: str, shape: Callable[[object], dict]) -> Response:
        """One page of `queryset` as `{name: [...], pagination}` (DESIGN section 4)."""
        items, pagination = paginate(queryset, page_request(self.request))
        return envelope({name: [shape(item) for item in items], "pagination": pagination})
