"""Thin views of the tool interface (the tool envelope family: /tools, /connections, /approvals)."""

from __future__ import annotations

from rest_framework.viewsets import ViewSet

from config.api.errors import InvalidParameter
from config.api.views import TenantAPIView


# A tenant-scoped ViewSet, routed by `toolhub.urls`' router. (Comments, not a docstring: the
# OpenAPI schema would show a docstring as the description of every operation.)
class TenantViewSet(ViewSet, TenantAPIView):
    # A path segment is any text: tool keys have dots, and a malformed id is the selectors' 400,
    # not a routing 404.
    lookup_value_converter = "str"

    def required_access(self, method: str):
        # A method this route does not serve is answered 405 after the check of reading access,
        # as on a plain view.
        return super().required_access(method if self.action else "GET")


def query_choice(request, name: str, allowed: list[str]) -> str | None:
    """A query parameter that must be one of `allowed` (400 INVALID_PARAMETER), or None."""
    value = request.query_params.get(name) or None
    if value is not None and value not in allowed:
        raise InvalidParameter(f"Invalid {name} parameter.", details={name: f"One of: {', '.join(allowed)}."})
    return value
