"""GET /api/v1/tools, GET /api/v1/tools/{tool_key}, POST /api/v1/tools/{tool_key}/execute."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.decorators import action

from core.api.envelopes import tool_response
from core.api.errors import InvalidParameter
from core.api.schema import PATH_ID_PATTERNS, ToolErrorEnvelopeSerializer, closed_input, tool_envelope
from core.api.views import TenantViewSet
from core.audit import actor_of
from toolhub.access import TOOLS_LIST
from toolhub.apis.shapes import ToolDefinition, ToolList, list_envelope, tool_data
from toolhub.inputs import IDEMPOTENCY_KEY
from toolhub.registry import DOMAINS, tools_all
from toolhub.selectors import tool_get
from toolhub.services.execute import ExecuteCall, tool_execute


@closed_input
class ExecuteInput(serializers.Serializer):
    """Documentation of the body; the body is checked by toolhub.inputs (INVALID_INPUT)."""

    input = serializers.DictField(help_text="The tool's input, an object; must match its input schema.")
    connection_id = serializers.RegexField(
        PATH_ID_PATTERNS["connection_id"], required=False, help_text="conn_…; default: the domain's default."
    )
    idempotency_key = serializers.RegexField(
        IDEMPOTENCY_KEY.pattern,
        required=False,
        max_length=255,
        help_text="Replay-safe key; the Idempotency-Key header works too.",
    )
    dry_run = serializers.BooleanField(required=False, default=False)

    class Meta:
        ref_name = "ToolExecuteInput"


class ToolViewSet(TenantViewSet):
    # Execute too: any principal of the tenant reaches the handler, since the tool must be found
    # (TOOL_NOT_FOUND) before the principal's tools:execute scope and tool patterns are checked
    # (FORBIDDEN), DESIGN section 9.
    access = TOOLS_LIST
    lookup_field = "tool_key"

    @extend_schema(
        operation_id="tools_list",
        summary="List the tools",
        parameters=[
            OpenApiParameter("domain", str, enum=sorted(DOMAINS), description="Only this domain's tools.")
        ],
        responses={200: list_envelope("ToolListEnvelope", ToolList)},
        tags=["tools"],
    )
    def list(self, request):
        domain = request.query_params.get("domain")  # present but empty is an unknown domain too
        if domain is not None and domain not in DOMAINS:
            raise InvalidParameter(
                "Unknown domain.", details={"domain": f"One of: {', '.join(sorted(DOMAINS))}."}
            )
        tools = [tool_data(tool, schemas=False) for tool in tools_all(domain=domain)]
        return tool_response({"tools": tools, "total": len(tools)})

    @extend_schema(
        operation_id="tools_get",
        summary="Get a tool with its input and output schemas",
        responses={200: tool_envelope("ToolDefinitionEnvelope", ToolDefinition)},
        tags=["tools"],
    )
    def retrieve(self, request, tool_key: str):
        return tool_response(tool_data(tool_get(key=tool_key), schemas=True))

    @extend_schema(
        operation_id="tools_execute",
        summary="Execute a tool (or dry-run it)",
        request=ExecuteInput,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                {"type": "string", "pattern": IDEMPOTENCY_KEY.pattern},
                OpenApiParameter.HEADER,
                description="Same as idempotency_key (the two must agree).",
            )
        ],
        responses={
            200: tool_envelope(
                "ToolExecuteEnvelope",
                serializers.JSONField(help_text="The tool's output, or the dry-run report."),
                connection_id=serializers.CharField(),
                duration_ms=serializers.IntegerField(),
            ),
            202: OpenApiResponse(ToolErrorEnvelopeSerializer, description="APPROVAL_REQUIRED"),
            409: OpenApiResponse(ToolErrorEnvelopeSerializer, description="IDEMPOTENCY_IN_PROGRESS"),
            502: OpenApiResponse(ToolErrorEnvelopeSerializer, description="UPSTREAM_ERROR"),
            504: OpenApiResponse(ToolErrorEnvelopeSerializer, description="UPSTREAM_ERROR (timeout)"),
        },
        tags=["tools"],
    )
    @action(detail=True, methods=["post"])
    def execute(self, request, tool_key: str):
        call = ExecuteCall(
            tenant=self.tenant,
            principal=self.principal,
            actor=actor_of(request),
            request_id=request.request_id,
            tool_key=tool_key,
            body=request.data,
            header_key=request.headers.get("Idempotency-Key"),
        )
        result = tool_execute(call=call)
        response = HttpResponse(result.body, status=result.status, content_type="application/json")
        if result.replayed:
            response["Idempotent-Replayed"] = "true"
        return response
