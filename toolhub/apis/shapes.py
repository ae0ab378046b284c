"""What the tool hub's endpoints answer: plain dicts built from models and tools, and the OpenAPI
descriptions of the same shapes (named uniquely for drf-spectacular)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_serializer, inline_serializer
from rest_framework import serializers

from core.api.schema import PaginationSerializer, tool_envelope
from core.api.timestamps import iso_ms
from toolhub.models import Approval, Connection
from toolhub.registry import Tool


def tool_data(tool: Tool, *, schemas: bool) -> dict:
    data = {
        "tool_key": tool.key,
        "name": tool.name,
        "description": tool.description,
        "domain": tool.domain,
        "risk_level": tool.risk_level,
        "version": tool.version,
        "connectors": tool.connectors,
    }
    if schemas:
        data |= {"input_schema": tool.input_schema, "output_schema": tool.output_schema}
    return data


def connection_data(connection: Connection) -> dict:
    ok = None if connection.health == Connection.Health.UNKNOWN else connection.health == "healthy"
    return {
        "id": connection.public_id,
        "name": connection.name,
        "domain": connection.domain,
        "connector": connection.connector,
        "base_url": connection.base_url,
        "integrationId": connection.integration_id,
        "is_default": connection.is_default,
        "settings": connection.settings,
        "status": connection.status,
        "health": connection.health,
        "healthCheckedAt": iso_ms(connection.health_checked_at),
        "healthError": connection.health_error or None,
        # The same check, as answered before `health` existed.
        "last_check": {
            "at": iso_ms(connection.health_checked_at),
            "ok": ok,
            "message": connection.health_error or ("The vendor answered." if ok else None),
        },
        "created_at": iso_ms(connection.created_at),
        "updated_at": iso_ms(connection.updated_at),
    }


def approval_data(approval: Approval) -> dict:
    return {
        "id": approval.public_id,
        "status": approval.status,
        "tool_key": approval.tool_key,
        "risk_level": approval.risk_level,
        "connection_id": approval.connection.public_id if approval.connection_id else None,
        "idempotency_key": approval.idempotency_key,
        "input": approval.input_redacted,
        "requested_by": approval.requester,
        "requested_at": iso_ms(approval.created_at),
        "expires_at": iso_ms(approval.expires_at),
        "decided_by": approval.decided_by or None,
        "decided_at": iso_ms(approval.decided_at),
        "reason": approval.reason or None,
        "executed_at": iso_ms(approval.executed_at),
    }


def list_envelope(name: str, data) -> serializers.Serializer:
    """The answer of a collection's `list` action: one envelope object (drf-spectacular describes a
    ViewSet's `list` as an array of its serializer otherwise)."""
    return extend_schema_serializer(many=False)(tool_envelope(name, data))


def _tool_fields() -> dict:
    return {
        "tool_key": serializers.CharField(),
        "name": serializers.CharField(),
        "description": serializers.CharField(),
        "domain": serializers.CharField(),
        "risk_level": serializers.ChoiceField(choices=["read", "write", "destructive", "admin"]),
        "version": serializers.CharField(),
        "connectors": serializers.ListField(child=serializers.CharField()),
    }


ToolSummary = inline_serializer(name="ToolSummary", fields=_tool_fields())
ToolDefinition = inline_serializer(
    name="ToolDefinition",
    fields={
        **_tool_fields(),
        "input_schema": serializers.JSONField(),
        "output_schema": serializers.JSONField(),
    },
)
ToolList = inline_serializer(
    name="ToolList", fields={"tools": ToolSummary.__class__(many=True), "total": serializers.IntegerField()}
)
ConnectionShape = inline_serializer(
    name="Connection",
    fields={
        "id": serializers.CharField(),
        "name": serializers.CharField(),
        "domain": serializers.CharField(),
        "connector": serializers.CharField(),
        "base_url": serializers.CharField(help_text="The vendor API root; empty for knowledge."),
        "integrationId": serializers.CharField(),
        "is_default": serializers.BooleanField(),
        "settings": serializers.JSONField(),
        "status": serializers.CharField(help_text="active or inactive"),
        "health": serializers.CharField(
            help_text="unknown, healthy or unhealthy: the last probe (test endpoint or connectionHealth job)"
        ),
        "healthCheckedAt": serializers.CharField(allow_null=True),
        "healthError": serializers.CharField(allow_null=True, help_text="A short message when unhealthy."),
        "last_check": inline_serializer(
            name="ConnectionLastCheck",
            fields={
                "at": serializers.CharField(allow_null=True),
                "ok": serializers.BooleanField(allow_null=True),
                "message": serializers.CharField(allow_null=True),
            },
        ),
        "created_at": serializers.CharField(),
        "updated_at": serializers.CharField(),
    },
)
ConnectionList = inline_serializer(
    name="ConnectionList",
    fields={"connections": ConnectionShape.__class__(many=True), "pagination": PaginationSerializer()},
)
ConnectionTest = inline_serializer(
    name="ConnectionTestResult",
    fields={
        "connection_id": serializers.CharField(),
        "healthy": serializers.BooleanField(),
        "checked_at": serializers.CharField(),
        "latency_ms": serializers.IntegerField(),
        "error": serializers.JSONField(allow_null=True),
    },
)
ApprovalShape = inline_serializer(
    name="Approval",
    fields={
        "id": serializers.CharField(),
        # A CharField, not a ChoiceField: drf-spectacular would name its enum "Status…" and collide
        # with other components' status enums.
        "status": serializers.CharField(help_text=f"One of: {', '.join(Approval.Status.values)}."),
        "tool_key": serializers.CharField(),
        "risk_level": serializers.CharField(),
        "connection_id": serializers.CharField(allow_null=True),
        "idempotency_key": serializers.CharField(),
        "input": serializers.JSONField(),
        "requested_by": serializers.JSONField(),
        "requested_at": serializers.CharField(),
        "expires_at": serializers.CharField(),
        "decided_by": serializers.JSONField(allow_null=True),
        "decided_at": serializers.CharField(allow_null=True),
        "reason": serializers.CharField(allow_null=True),
        "executed_at": serializers.CharField(allow_null=True),
    },
)
ApprovalList = inline_serializer(
    name="ApprovalList",
    fields={"approvals": ApprovalShape.__class__(many=True), "pagination": PaginationSerializer()},
)
