"""/api/v1/connections: list, create, get, update, delete, test."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.decorators import action

from core.api.envelopes import tool_response
from core.api.fields import StrictBooleanField, StrictCharField, UrlField
from core.api.pagination import page_request, paginate
from core.api.schema import closed_input, one_of, page_parameters, tool_envelope
from core.api.validation import validated
from core.api.views import TenantViewSet
from core.audit import actor_of
from toolhub.access import CONNECTIONS, CONNECTIONS_WRITE
from toolhub.apis import query_choice
from toolhub.apis.shapes import (
    ConnectionList,
    ConnectionShape,
    ConnectionTest,
    connection_data,
    list_envelope,
)
from toolhub.connectors import CONNECTORS
from toolhub.models import Connection
from toolhub.registry import DOMAINS
from toolhub.selectors import connection_get, connection_list
from toolhub.services.connections import (
    connection_create,
    connection_delete,
    connection_test,
    connection_update,
)


def _connector_branches() -> list[dict]:
    """What the service checks (`_check_domain`, `_check_target`): a domain's own connectors; a
    vendor's connection names its base URL and credential, the knowledge connector's neither."""
    branches = []
    for domain, connectors in sorted(DOMAINS.items()):
        for vendor in (True, False):
            names = [name for name in connectors if CONNECTORS[name].vendor is vendor]
            if not names:
                continue
            branch: dict = {"properties": {"domain": {"enum": [domain]}, "connector": {"enum": names}}}
            if vendor:
                branch["required"] = ["base_url", "integrationId"]
            else:
                branch["not"] = {"anyOf": [{"required": ["base_url"]}, {"required": ["integrationId"]}]}
            branches.append(branch)
    return branches


@one_of(*_connector_branches())
class ConnectionCreateInput(serializers.Serializer):
    name = StrictCharField(max_length=255)
    domain = serializers.ChoiceField(choices=sorted(DOMAINS))
    connector = StrictCharField(max_length=32)
    base_url = UrlField(
        max_length=500, required=False, default="", help_text="Required, except for the knowledge connector."
    )
    integrationId = StrictCharField(
        max_length=255, required=False, default="", help_text="Required, except for the knowledge connector."
    )
    is_default = StrictBooleanField(required=False)
    settings = serializers.DictField(required=False)

    class Meta:
        ref_name = "ConnectionCreateInput"


@closed_input
class ConnectionUpdateInput(serializers.Serializer):
    name = StrictCharField(max_length=255, required=False)
    base_url = UrlField(max_length=500, required=False)
    integrationId = StrictCharField(max_length=255, required=False)
    is_default = StrictBooleanField(required=False)
    settings = serializers.DictField(required=False)
    # A plain string (checked by the service): a ChoiceField's enum would collide in the schema with
    # the other "status" enums.
    status = StrictCharField(required=False, help_text="active or inactive")

    class Meta:
        ref_name = "ConnectionUpdateInput"


def _model_fields(data: dict) -> dict:
    fields = dict(data)
    if "integrationId" in fields:
        fields["integration_id"] = fields.pop("integrationId")
    return fields


class ConnectionViewSet(TenantViewSet):
    access = CONNECTIONS
    lookup_field = "connection_id"

    @extend_schema(
        operation_id="connections_list",
        summary="List the tenant's connections",
        parameters=[
            OpenApiParameter("domain", str, enum=sorted(DOMAINS)),
            # An inline enum: a named one would collide with the other "status" enums.
            OpenApiParameter("status", {"type": "string", "enum": Connection.Status.values}),
            *page_parameters(),
        ],
        responses={200: list_envelope("ConnectionListEnvelope", ConnectionList)},
        tags=["connections"],
    )
    def list(self, request):
        domain = query_choice(request, "domain", sorted(DOMAINS))
        status = query_choice(request, "status", Connection.Status.values)
        rows, pagination = paginate(
            connection_list(tenant=self.tenant, domain=domain, status=status), page_request(request)
        )
        return tool_response({"connections": [connection_data(c) for c in rows], "pagination": pagination})

    @extend_schema(
        operation_id="connections_create",
        summary="Create a connection",
        request=ConnectionCreateInput,
        responses={200: tool_envelope("ConnectionEnvelope", ConnectionShape)},
        tags=["connections"],
    )
    def create(self, request):
        data = _model_fields(validated(ConnectionCreateInput, request.data))
        connection = connection_create(
            tenant=self.tenant, actor=actor_of(request), request_id=request.request_id, **data
        )
        return tool_response(connection_data(connection))

    @extend_schema(
        operation_id="connections_get",
        summary="Get a connection",
        responses={200: tool_envelope("ConnectionGetEnvelope", ConnectionShape)},
        tags=["connections"],
    )
    def retrieve(self, request, connection_id: str):
        return tool_response(connection_data(connection_get(tenant=self.tenant, connection_id=connection_id)))

    @extend_schema(
        operation_id="connections_update",
        summary="Update a connection",
        request=ConnectionUpdateInput,
        responses={200: tool_envelope("ConnectionUpdateEnvelope", ConnectionShape)},
        tags=["connections"],
    )
    def partial_update(self, request, connection_id: str):
        connection = connection_get(tenant=self.tenant, connection_id=connection_id)
        changes = _model_fields(validated(ConnectionUpdateInput, request.data, reject_unknown=True))
        connection = connection_update(
            tenant=self.tenant,
            connection=connection,
            actor=actor_of(request),
            changes=changes,
            request_id=request.request_id,
        )
        return tool_response(connection_data(connection))

    @extend_schema(
        operation_id="connections_delete",
        summary="Delete a connection",
        responses={
            200: tool_envelope(
                "ConnectionDeleteEnvelope",
                serializers.DictField(help_text="{id, deleted: true}"),
            )
        },
        tags=["connections"],
    )
    def destroy(self, request, connection_id: str):
        connection = connection_get(tenant=self.tenant, connection_id=connection_id)
        public_id = connection.public_id
        connection_delete(
            tenant=self.tenant, connection=connection, actor=actor_of(request), request_id=request.request_id
        )
        return tool_response({"id": public_id, "deleted": True})

    @extend_schema(
        operation_id="connections_test",
        summary="Test a connection with one read at the vendor",
        request=None,
        responses={200: tool_envelope("ConnectionTestEnvelope", ConnectionTest)},
        tags=["connections"],
    )
    @action(detail=True, methods=["post"], access=CONNECTIONS_WRITE)
    def test(self, request, connection_id: str):
        connection = connection_get(tenant=self.tenant, connection_id=connection_id)
        result = connection_test(
            tenant=self.tenant, connection=connection, actor=actor_of(request), request_id=request.request_id
        )
        return tool_response(result)
