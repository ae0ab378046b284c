"""POST /mcp: the Model Context Protocol's Streamable HTTP transport, stateless, JSON answers only
(DESIGN section 16). The messages are handled by toolhub.mcp; this view is the HTTP side.

A tenant view like the others (authentication, tenant, rate limit and its headers, then access),
with two differences: `x-tenantid` is optional (a machine's own tenant by default), and an `Origin`
that is neither this host nor listed in `MCP_ALLOWED_ORIGINS` is refused before anything else,
since a browser page must not reach a local server through DNS rebinding.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from oauth2_provider.views import OAuthProtectedResourceMetadataView
from oauth2_provider.www_authenticate import build_bearer_challenge
from rest_framework import serializers
from rest_framework.exceptions import ParseError
from rest_framework.response import Response

from core.access import Access
from core.api.errors import Forbidden
from core.api.schema import TENANT_HEADER, ApiAutoSchema
from core.api.views import PublicAPIView, TenantAPIView
from core.audit import actor_of
from core.tenancy import tenant_resolve
from toolhub.mcp import PROTOCOL_VERSION_HEADER, McpCaller, mcp_handle, mcp_parse_error
from toolhub.mcp.wire import HANDSHAKE_VERSIONS, STATELESS_VERSIONS

# Any machine principal of the tenant (API key, OAuth token, service account); users never execute
# tools, and tools/list shows each machine the tools it may call.
MCP_CLIENTS = Access(role=None, scope=None, users=False)
# What an agent asks for when it connects to /mcp (RFC 9728 `scopes_supported`, the 401's `scope`):
# read the knowledge base, list and call tools. A person's consent narrows them to their roles.
MCP_SCOPES = ("knowledge:read", "tools:read", "tools:execute")


class _McpSchema(ApiAutoSchema):
    """The tenant header is optional here."""

    def get_override_parameters(self):
        optional = OpenApiParameter(
            TENANT_HEADER.name,
            str,
            OpenApiParameter.HEADER,
            required=False,
            description="UUID of the tenant; default: the credential's own tenant.",
        )
        return [optional if p is TENANT_HEADER else p for p in super().get_override_parameters()]


# A JSON-RPC 2.0 request (an id) or notification (none) as the MCP SDK's types read it; its method
# and params are MCP's (docs/toolhub.md), which this schema does not repeat.
JSONRPC_MESSAGE = {
    "type": "object",
    "properties": {
        "jsonrpc": {"type": "string", "enum": ["2.0"]},
        "id": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "method": {"type": "string"},
        "params": {"type": "object", "nullable": True},
    },
    "required": ["jsonrpc", "method"],
}


class McpApi(TenantAPIView):
    access = MCP_CLIENTS
    schema = _McpSchema()
    http_method_names = ["post", "options"]

    def initial(self, request, *args, **kwargs):
        origin_check(request)
        if request.method.lower() not in self.http_method_names:
            # Before content negotiation: a client opening the SSE stream accepts only
            # text/event-stream, and must learn there is no stream (405), not get a 406.
            self.http_method_not_allowed(request)
        super().initial(request, *args, **kwargs)

    def tenant_context(self, request):
        return tenant_resolve(request, request.auth, own_tenant_default=True)

    def handle_exception(self, exc):
        response = super().handle_exception(exc)
        if response is not None and response.status_code == 401:
            response["WWW-Authenticate"] = mcp_challenge(self.request)
        return response

    @extend_schema(
        operation_id="mcp",
        summary="Model Context Protocol (Streamable HTTP, stateless, JSON)",
        description=(
            "One JSON-RPC 2.0 message: `initialize`, `ping` (handshake revisions), `server/discover` "
            "(stateless revision), `tools/list`, `tools/call`; notifications answer 202 with no body. "
            "`x-tenantid` is optional (the credential's own tenant). See docs/toolhub.md, section MCP."
        ),
        request={"application/json": JSONRPC_MESSAGE},
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="tools/call: as in REST execute (other methods ignore it).",
            ),
            OpenApiParameter(
                PROTOCOL_VERSION_HEADER,
                {"type": "string", "enum": [*HANDSHAKE_VERSIONS, *STATELESS_VERSIONS]},
                OpenApiParameter.HEADER,
                description="Every message after `initialize`: the negotiated version (default "
                "2025-03-26); every request of the stateless revision: 2026-07-28.",
            ),
            OpenApiParameter(
                "Mcp-Method", str, OpenApiParameter.HEADER, description="Stateless revision: the method."
            ),
            OpenApiParameter(
                "Mcp-Name", str, OpenApiParameter.HEADER, description="Stateless revision: the tool called."
            ),
        ],
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="A JSON-RPC response or error."),
            404: OpenApiResponse(OpenApiTypes.OBJECT, description="Stateless revision: unknown method."),
            202: OpenApiResponse(description="A notification or response was accepted."),
            400: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="JSON-RPC parse error, invalid request or unsupported protocol version; in "
                "the stateless revision also invalid params and headers that contradict the body.",
            ),
        },
        tags=["tools"],
    )
    def post(self, request):
        try:
            payload = request.data
        except ParseError as exc:
            reply = mcp_parse_error(str(exc.detail))
        else:
            headers = {name.lower(): value for name, value in request.headers.items()}
            reply = mcp_handle(caller=self._caller(request), payload=payload, headers=headers)
        response = Response(reply.body, status=reply.status)
        if reply.replayed:
            response["Idempotent-Replayed"] = "true"
        return response

    def _caller(self, request) -> McpCaller:
        return McpCaller(
            tenant=self.tenant,
            principal=self.principal,
            actor=actor_of(request),
            request_id=request.request_id,
            idempotency_header=request.headers.get("Idempotency-Key"),
            base_url=request.build_absolute_uri("/").rstrip("/"),
        )


def mcp_challenge(request) -> str:
    """The 401's challenge (MCP authorization, RFC 9728 section 5.1): where the protected-resource
    metadata is, which names the authorization server, and the scopes to ask for."""
    presented = request.META.get("HTTP_AUTHORIZATION") or request.META.get("HTTP_X_API_KEY")
    error = {"error": "invalid_token"} if presented else {}
    metadata = request.build_absolute_uri(reverse("mcp-resource-metadata"))
    return build_bearer_challenge(
        request, error | {"scope": " ".join(MCP_SCOPES)}, resource_metadata_url=metadata
    )


class McpResourceMetadataView(OAuthProtectedResourceMetadataView):
    """django-oauth-toolkit's RFC 9728 document for /mcp: the resource is read from the path
    (`<base>/mcp`), the authorization server is this service's issuer."""

    def get_scopes_supported(self):
        return list(MCP_SCOPES)

    def get_resource_name(self):
        return "Tool hub (MCP)"


class McpResourceMetadataApi(PublicAPIView):
    """GET /.well-known/oauth-protected-resource/mcp."""

    @extend_schema(
        operation_id="mcp_resource_metadata",
        summary="Protected-resource metadata of /mcp (RFC 9728)",
        responses={
            200: inline_serializer(
                "McpResourceMetadata",
                {
                    "resource": serializers.URLField(),
                    "authorization_servers": serializers.ListField(child=serializers.URLField()),
                    "scopes_supported": serializers.ListField(child=serializers.CharField()),
                    "bearer_methods_supported": serializers.ListField(child=serializers.CharField()),
                    "resource_name": serializers.CharField(),
                },
            )
        },
        tags=["tools"],
        auth=[],
    )
    def get(self, request):
        return McpResourceMetadataView.as_view()(request)


def origin_check(request) -> None:
    """No Origin (not a browser), this host, or an origin listed in MCP_ALLOWED_ORIGINS."""
    origin = request.headers.get("Origin")
    if origin is None or origin in settings.MCP_ALLOWED_ORIGINS:
        return
    if urlsplit(origin).netloc == request.get_host():
        return
    raise Forbidden("This Origin may not use the MCP endpoint.", code="ORIGIN_NOT_ALLOWED")
