"""DEK rotation endpoints (super admins): start one for a tenant, read its progress."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import extend_schema

from core.access import SUPER_ADMIN_ONLY
from core.api.envelopes import envelope
from core.api.errors import FieldError, InvalidParameter, RequestInvalid, ResourceNotFound
from core.api.schema import v1_envelope
from core.api.timestamps import iso_ms
from core.api.views import TenantAPIView
from core.audit import actor_of
from core.models import Tenant
from vault import selectors
from vault.apis import inputs, outputs
from vault.apis.credentials import _body
from vault.services.dek import dek_rotation_start


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
        rotation = dek_rotation_start(tenant=tenant, actor=actor_of(request), request_id=request.request_id)
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
