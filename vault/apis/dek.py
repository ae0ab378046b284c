"""DEK rotation endpoints (super admins): start one for a tenant, read its progress."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import extend_schema

from adminops.access import SUPER_ADMIN_ONLY
from adminops.audit import actor_of
from adminops.models import Tenant
from config.api.envelopes import envelope
from config.api.errors import FieldError, InvalidParameter, RequestInvalid, ResourceNotFound
from config.api.schema import v1_envelope
from config.api.timestamps import iso_ms
from config.api.views import TenantAPIView
from vault import selectors, services
from vault.apis import inputs, outputs
from vault.apis.credentials import _body


def _tenant_id(data: dict) -> uuid.UUID:
    """Missing or not a UUID: both 400, as documented for this endpoint."""
    if "tenantId" not in data:
        message = "This field is required."
        raise RequestInvalid(
            [FieldError(("tenantId",), message, "value_error.missing", "field required", shape=True)]
        )
    try:
        if not isinstance(data["tenantId"], str):
            raise ValueError("not a JSON string")
        return uuid.UUID(data["tenantId"])
    except ValueError:
        message = "tenantId must be a tenant UUID."
        raise RequestInvalid(
            [FieldError(("tenantId",), message, "type_error.uuid", message, shape=True)]
        ) from None


class DekRotateApi(TenantAPIView):
    """Platform-wide for super admins: `tenantId` names the tenant whose data key rotates."""

    access = SUPER_ADMIN_ONLY

    @extend_schema(
        operation_id="admin_dek_rotate",
        summary="Start a tenant's data-key rotation",
        request=inputs.DekRotateInput,
        responses={200: v1_envelope("DekRotateEnvelope", outputs.DekRotationSerializer())},
        tags=["admin"],
    )
    def post(self, request):
        tenant = Tenant.objects.filter(id=_tenant_id(_body(request))).first()
        if tenant is None:
            raise ResourceNotFound("Tenant not found.", code="TENANT_NOT_FOUND")
        rotation = services.dek_rotation_start(
            tenant=tenant, actor=actor_of(request), request_id=request.request_id
        )
        data = outputs.rotation_record(rotation) | {"status": "in_progress"}
        data["estimatedCompletion"] = iso_ms(
            rotation.started_at
        )  # batches start at once; see GET for progress
        return envelope(data, message="DEK rotation started.")


class DekRotationStatusApi(TenantAPIView):
    access = SUPER_ADMIN_ONLY

    @extend_schema(
        operation_id="admin_dek_rotation_get",
        summary="Read a data-key rotation's progress",
        responses={200: v1_envelope("DekRotationEnvelope", outputs.DekRotationSerializer())},
        tags=["admin"],
    )
    def get(self, request, rotation_id: str):
        text = rotation_id[4:] if rotation_id.startswith("rot-") else rotation_id
        try:
            parsed = uuid.UUID(text)
        except ValueError:
            raise InvalidParameter(
                "Invalid rotationId.", details={"rotationId": "rotationId must be rot-<uuid>."}
            ) from None
        rotation = selectors.dek_rotation_get(rotation_id=parsed)
        return envelope(outputs.rotation_record(rotation), message="DEK rotation status retrieved.")
