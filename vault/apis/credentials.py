"""The credential endpoints (thin: parse, call a service or selector, shape)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework.decorators import action
from rest_framework.exceptions import ParseError

from core.access import VAULT_READ, VAULT_SECRETS, VAULT_WRITE
from core.api.envelopes import envelope
from core.api.errors import InvalidParameter
from core.api.pagination import page_info, page_request
from core.api.schema import UUID_PATTERN, ErrorEnvelopeSerializer, page_parameters, v1_envelope
from core.api.timestamps import iso_ms
from core.api.validation import validated
from core.api.views import TenantAPIView, TenantViewSet
from core.audit import actor_of
from core.people import person
from vault import selectors
from vault.apis import inputs, outputs
from vault.models import Credential
from vault.services.common import parse_credential_id
from vault.services.credentials import (
    credential_delete,
    credential_read_secrets,
    credential_rotate,
    credential_store,
    credential_update,
)

# Absent or empty: no filter; given, what `parse_credential_id` takes (another value is a 400).
CREDENTIAL_ID_QUERY = OpenApiParameter(
    "credentialId",
    {"type": "string", "pattern": f"^(?:(?:cred-)?{UUID_PATTERN})?$"},
    OpenApiParameter.QUERY,
    required=False,
    description="cred-<uuid> or a UUID",
)


def _body(request) -> dict:
    data = request.data
    if not isinstance(data, dict):
        raise ParseError("The request body must be a JSON object.")
    return data


def _credential_query(request):
    raw = request.query_params.get("credentialId")
    return parse_credential_id(raw) if raw else None


# The credential collection, routed by `vault.urls`' router: `credentials` (list, store),
# `credentials/{integrationId}` (the decrypted credential) and `.../details`. The two other
# documented paths do not fit a router (rotate is keyed by credentialId, an update or delete by
# both ids): plain views below. (Comments, not a docstring: the OpenAPI schema would show it.)
class CredentialViewSet(TenantViewSet):
    lookup_field = "integration_id"
    lookup_value_converter = "str"  # an integrationId may hold dots
    access = {"list": VAULT_READ, "create": VAULT_WRITE, "retrieve": VAULT_SECRETS, "details": VAULT_READ}

    @extend_schema(
        operation_id="credentials_store",
        summary="Store a credential",
        request=inputs.CredentialStoreInput,
        responses={200: v1_envelope("CredentialStoreEnvelope", outputs.CredentialRecordSerializer())},
        tags=["vault"],
    )
    def create(self, request):
        data = validated(inputs.CredentialStoreInput, _body(request))
        credential = credential_store(
            tenant=self.tenant,
            actor=actor_of(request),
            integration_id=data["integrationId"],
            name=data["credentialName"],
            auth_type=data["authType"],
            description=data["description"],
            scopes=data.get("scopes"),
            token_endpoint=data.get("tokenEndpoint", ""),
            authorization_endpoint=data.get("authorizationEndpoint", ""),
            metadata=data.get("metadata"),
            expires_in=data.get("expiresIn"),
            access_token=data.get("accessToken"),
            refresh_token=data.get("refreshToken"),
            secrets=data.get("secrets"),
            request_id=request.request_id,
        )
        return envelope(
            outputs.credential_record(credential, self.tenant), message="Credentials stored successfully."
        )

    @extend_schema(
        operation_id="credentials_list",
        summary="List credentials",
        parameters=[
            OpenApiParameter("authType", str, enum=Credential.AuthType.values, required=False),
            OpenApiParameter("status", str, enum=Credential.Status.values, required=False),
            OpenApiParameter("isExpired", bool, required=False),
            *page_parameters(),
        ],
        # One envelope, not an array of them as drf-spectacular would take a `list` action's to be.
        responses={
            200: extend_schema_serializer(many=False)(
                v1_envelope("CredentialListEnvelope", outputs.CredentialListSerializer())
            )
        },
        tags=["vault"],
    )
    def list(self, request):
        page = page_request(request)
        summaries, total = selectors.credential_page(
            tenant=self.tenant, offset=page.offset, limit=page.limit, **_list_filters(request)
        )
        data = {
            "credentials": outputs.credential_records(summaries, self.tenant),
            "pagination": page_info(page, total, len(summaries)),
        }
        return envelope(data, message="Credentials retrieved.")

    @extend_schema(
        operation_id="credentials_get_decrypted",
        summary="Get a credential with its decrypted secrets",
        parameters=[CREDENTIAL_ID_QUERY],
        responses={200: v1_envelope("CredentialDecryptedEnvelope", outputs.CredentialDecryptedSerializer())},
        tags=["vault"],
    )
    def retrieve(self, request, integration_id: str):
        """GET /credentials/{integrationId}: the decrypted credential (refreshed first when due)."""
        credential, revealed, refresh_error = credential_read_secrets(
            tenant=self.tenant,
            actor=actor_of(request),
            integration_id=integration_id,
            credential_id=_credential_query(request),
            request_id=request.request_id,
        )
        data = outputs.decrypted_record(credential, self.tenant, revealed, refresh_error)
        response = envelope(data, message="Credentials retrieved.")
        response["Cache-Control"] = "no-store"
        return response

    @extend_schema(
        operation_id="credentials_get_details",
        summary="Get a credential's details (no secrets)",
        parameters=[CREDENTIAL_ID_QUERY],
        responses={200: v1_envelope("CredentialDetailsEnvelope", outputs.CredentialRecordSerializer())},
        tags=["vault"],
    )
    @action(detail=True, methods=["get"])
    def details(self, request, integration_id: str):
        credential = selectors.credential_get_by_integration(
            tenant=self.tenant, integration_id=integration_id, credential_id=_credential_query(request)
        )
        return envelope(
            outputs.credential_record(credential, self.tenant), message="Credential details retrieved."
        )


def _list_filters(request) -> dict:
    params = request.query_params
    filters: dict = {}
    for name, key, allowed in (
        ("authType", "auth_type", Credential.AuthType.values),
        ("status", "status", Credential.Status.values),
    ):
        value = params.get(name)
        if value is not None:
            if value not in allowed:
                raise InvalidParameter(
                    f"Invalid {name} parameter.", details={name: f"Allowed values: {', '.join(allowed)}."}
                )
            filters[key] = value
    expired = params.get("isExpired")
    if expired is not None:
        if expired.lower() not in ("true", "false"):
            raise InvalidParameter(
                "Invalid isExpired parameter.", details={"isExpired": "Use true or false."}
            )
        filters["is_expired"] = expired.lower() == "true"
    return filters


class CredentialItemApi(TenantAPIView):
    access = VAULT_WRITE

    @extend_schema(
        operation_id="credentials_update",
        summary="Update a credential's metadata or status",
        request=inputs.CredentialUpdateInput,
        responses={200: v1_envelope("CredentialUpdateEnvelope", outputs.CredentialUpdatedSerializer())},
        tags=["vault"],
    )
    def patch(self, request, integration_id: str, credential_id: str):
        parsed_id = parse_credential_id(credential_id)
        data = validated(inputs.CredentialUpdateInput, _body(request), reject_unknown=True)
        credential, changes = credential_update(
            tenant=self.tenant,
            actor=actor_of(request),
            integration_id=integration_id,
            credential_id=parsed_id,
            changes=dict(data),
            request_id=request.request_id,
        )
        data = outputs.credential_record(credential, self.tenant) | {"changes": changes}
        return envelope(data, message="Credential updated successfully.")

    @extend_schema(
        operation_id="credentials_delete",
        summary="Delete a credential (its secrets are destroyed)",
        responses={200: v1_envelope("CredentialDeleteEnvelope", outputs.CredentialDeletedSerializer())},
        tags=["vault"],
    )
    def delete(self, request, integration_id: str, credential_id: str):
        credential, affected = credential_delete(
            tenant=self.tenant,
            actor=actor_of(request),
            integration_id=integration_id,
            credential_id=parse_credential_id(credential_id),
            request_id=request.request_id,
        )
        return envelope(
            outputs.deleted_record(credential, affected), message="Credential deleted successfully."
        )


class CredentialRotateApi(TenantAPIView):
    access = VAULT_WRITE

    @extend_schema(
        operation_id="credentials_rotate",
        summary="Rotate a credential's secrets, or refresh its token now",
        request=inputs.CredentialRotateInput,
        responses={
            200: v1_envelope("CredentialRotateEnvelope", outputs.CredentialRotatedSerializer()),
            502: OpenApiResponse(
                ErrorEnvelopeSerializer, description="The token endpoint failed or is unreachable."
            ),
        },
        tags=["vault"],
    )
    def post(self, request, credential_id: str):
        parsed_id = parse_credential_id(credential_id)
        data = validated(inputs.CredentialRotateInput, _body(request) if request.data else {})
        actor = actor_of(request)
        credential, method, fields = credential_rotate(
            tenant=self.tenant,
            actor=actor,
            credential_id=parsed_id,
            access_token=data.get("accessToken"),
            refresh_token=data.get("refreshToken"),
            secrets=data.get("secrets"),
            expires_in=data.get("expiresIn"),
            request_id=request.request_id,
        )
        rotated_at = credential.last_rotated_at if method == "replaced" else credential.last_refreshed_at
        rotation = {
            "rotatedAt": iso_ms(rotated_at),
            "rotatedBy": person(actor),
            "method": method,
            "fields": fields,
        }
        data = outputs.credential_record(credential, self.tenant) | {"rotation": rotation}
        return envelope(data, message="Credential rotated successfully.")
