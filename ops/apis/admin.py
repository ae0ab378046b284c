"""/api/v1/admin: tenants and their stats, audit logs, background jobs."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.decorators import action

from core.access import ADMIN, AUDIT_READ, SUPER_ADMIN_ONLY
from core.api.envelopes import envelope
from core.api.errors import Forbidden, InvalidParameter, ResourceNotFound, value_error
from core.api.fields import UrlField
from core.api.ids import path_id
from core.api.pagination import page_request, paginate
from core.api.schema import NO_CONTROL, UUID_PATTERN, closed_input, text_parameter, v1_envelope
from core.api.timestamps import iso_ms
from core.api.validation import validated
from core.api.views import TenantAPIView, TenantViewSet
from core.audit import actor_of
from core.jobs import JOB_SPECS, job_trigger
from core.models import AuditEntry, Tenant
from core.people import person
from core.tenancy import SUPER_ADMIN
from identity.apis.fields import PAGE_PARAMETERS, has_control, obj, page_envelope, record, text, when
from ops import services as svc
from ops.selectors import audit_entries, tenant_get
from ops.stats import job_stats, tenant_stats


def tenant_body(tenant: Tenant) -> dict:
    subscription = tenant.subscription or {}
    return {
        "id": str(tenant.id),
        "name": tenant.name,
        "displayName": tenant.display_name or tenant.name,
        "serverUrl": tenant.server_url or None,
        "realmName": tenant.realm_name or None,
        "status": tenant.status,
        "settings": tenant.settings,
        "subscription": {
            "plan": subscription.get("plan"),
            "usersLimit": subscription.get("usersLimit"),
            "expiresAt": subscription.get("expiresAt"),
        },
        "createdAt": iso_ms(tenant.created_at),
        "updatedAt": iso_ms(tenant.updated_at),
    }


class TenantSettingsSerializer(serializers.Serializer):
    """Known settings are checked; other keys are kept as given (the object is replaced whole)."""

    ssoEnabled = serializers.BooleanField(required=False)
    mfaRequired = serializers.BooleanField(required=False)
    sessionTimeout = serializers.IntegerField(min_value=60, max_value=7 * 86400, required=False)
    passwordPolicy = serializers.ChoiceField(choices=["basic", "standard", "strong"], required=False)

    class Meta:
        ref_name = "TenantSettings"


@extend_schema(tags=["admin"])
class AdminTenantViewSet(TenantViewSet):
    # /api/v1/admin/tenants/{tenantId} and its /stats: the caller's own tenant, any for a super admin.
    lookup_url_kwarg = "tenant_id"
    access = ADMIN.but(destroy=SUPER_ADMIN_ONLY)

    @closed_input
    class PatchSerializer(serializers.Serializer):
        serverUrl = UrlField(max_length=500, required=False, allow_blank=True)
        realmName = serializers.CharField(max_length=255, required=False, allow_blank=True)
        settings = TenantSettingsSerializer(required=False)

        class Meta:
            ref_name = "TenantUpdateInput"

    def get_object(self) -> Tenant:
        return tenant_get(
            acting=self.tenant,
            tenant_id=path_id(self.kwargs["tenant_id"], name="tenantId"),
            super_admin=SUPER_ADMIN in self.ctx.roles,
        )

    @extend_schema(
        operation_id="admin_tenant_get",
        summary="Get a tenant",
        responses={200: v1_envelope("TenantEnvelope", obj())},
    )
    def retrieve(self, request, tenant_id: str):
        return envelope(tenant_body(self.get_object()), message="Tenant retrieved.")

    @extend_schema(
        operation_id="admin_tenant_update",
        summary="Update a tenant's settings",
        request=PatchSerializer,
        responses={200: v1_envelope("TenantUpdateEnvelope", obj())},
    )
    def partial_update(self, request, tenant_id: str):
        tenant = self.get_object()
        data = validated(self.PatchSerializer, request.data, reject_unknown=True)
        changes = {k: v for k, v in data.items() if k != "settings"}
        if "settings" in data:
            raw = request.data["settings"]
            if len(str(raw)) > 16 * 1024 or has_control(raw):
                raise value_error("settings", "settings: at most 16 KiB of JSON, no control characters.")
            changes["settings"] = raw  # replaced whole, unknown keys kept as sent
        tenant = svc.tenant_update(
            tenant=tenant, changes=changes, actor=actor_of(request), request_id=request.request_id
        )
        body = {
            "id": str(tenant.id),
            "name": tenant.name,
            "serverUrl": tenant.server_url or None,
            "realmName": tenant.realm_name or None,
            "settings": tenant.settings,
            "updatedAt": iso_ms(tenant.updated_at),
            "updatedBy": person(actor_of(request)),
        }
        return envelope(body, message="Tenant updated.")

    @extend_schema(
        operation_id="admin_tenant_delete",
        summary="Delete a tenant with all its data",
        responses={200: v1_envelope("TenantDeleteEnvelope", obj())},
    )
    def destroy(self, request, tenant_id: str):
        result = svc.tenant_delete(
            tenant=self.get_object(), actor=actor_of(request), request_id=request.request_id
        )
        body = result | {"status": "deleted", "deletedAt": iso_ms(result["deletedAt"])}
        return envelope(body, message="Tenant deleted with all its data.")

    @extend_schema(
        operation_id="admin_tenant_stats",
        summary="Get a tenant's statistics",
        responses={200: v1_envelope("TenantStatsEnvelope", obj())},
    )
    @action(detail=True, methods=["get"])
    def stats(self, request, tenant_id: str):
        return envelope(tenant_stats(tenant=self.get_object()), message="Tenant statistics.")


class AuditLogEntrySerializer(serializers.Serializer):
    id = text()
    action = text()
    category = text()
    actor = obj()
    resource = obj()
    details = obj()
    status = text()
    requestId = text()
    tenantId = text(allow_null=True)
    timestamp = when()

    class Meta:
        ref_name = "AuditLogEntry"


def audit_body(entry: AuditEntry) -> dict:
    return {
        "id": f"log-{entry.id}",
        "action": entry.action,
        "category": entry.category,
        "actor": entry.actor,
        "resource": entry.resource,
        "details": entry.details,
        "status": entry.status,
        "requestId": entry.request_id,
        "tenantId": str(entry.tenant_id) if entry.tenant_id else None,
        "timestamp": iso_ms(entry.timestamp),
    }


_TEXT_FILTERS = ("action", "category", "status", "actorId", "resourceType")
MOMENT = {"anyOf": [{"type": "string", "maxLength": 0}, {"type": "string", "format": "date-time"}]}


class AuditLogListApi(TenantAPIView):
    access = AUDIT_READ

    @extend_schema(
        operation_id="admin_audit_logs",
        summary="List the tenant's audit log",
        parameters=[
            text_parameter(
                "tenantId",
                "Super admins only: another tenant's log (empty: yours).",
                pattern=f"^(?:{UUID_PATTERN})?$",
            ),
            *[OpenApiParameter(name, {"type": "string", "pattern": NO_CONTROL}) for name in _TEXT_FILTERS],
            OpenApiParameter("from", MOMENT, description="ISO 8601; entries at or after (empty: no bound)."),
            OpenApiParameter("to", MOMENT, description="ISO 8601; entries at or before (empty: no bound)."),
            *PAGE_PARAMETERS,
        ],
        responses={
            200: page_envelope(
                "AuditLogListEnvelope", "AuditLogList", "logs", AuditLogEntrySerializer(many=True)
            )
        },
        tags=["admin"],
    )
    def get(self, request):
        params = request.query_params
        page = page_request(request)
        filters = {name: params.get(name, "")[:200] for name in _TEXT_FILTERS}
        for name, value in filters.items():
            if has_control(value):
                raise InvalidParameter(f"Invalid {name} parameter.", details={name: "No control characters."})
        filters["from"], filters["to"] = _moment(params, "from"), _moment(params, "to")
        entries, pagination = paginate(
            audit_entries(tenant_id=self._tenant_id(params.get("tenantId")), filters=filters), page
        )
        return envelope({"logs": [audit_body(e) for e in entries], "pagination": pagination})

    def _tenant_id(self, raw: str | None) -> uuid.UUID:
        if not raw:
            return self.tenant.id
        wanted = path_id(raw, name="tenantId")
        if wanted != self.tenant.id and SUPER_ADMIN not in self.ctx.roles:
            raise Forbidden("Only a super admin may read another tenant's audit log.")
        return wanted


def _moment(params, name: str) -> datetime | None:
    raw = params.get(name)
    if not raw:
        return None
    try:
        value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidParameter(
            f"Invalid {name} parameter.", details={name: f"{name} must be an ISO 8601 time."}
        ) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value


class JobTriggerApi(TenantAPIView):
    access = SUPER_ADMIN_ONLY

    class InputSerializer(serializers.Serializer):
        jobName = serializers.CharField(max_length=64)

        class Meta:
            ref_name = "JobTriggerInput"

    @extend_schema(
        operation_id="admin_jobs_trigger",
        summary="Trigger a background job",
        request=InputSerializer,
        responses={
            200: v1_envelope(
                "JobTriggerEnvelope",
                record(
                    "JobTriggered",
                    jobId=text(),
                    jobName=text(),
                    status=text(),
                    triggeredAt=when(),
                    triggeredBy=obj(),
                    estimatedStartTime=when(),
                    priority=text(),
                ),
            )
        },
        tags=["admin"],
    )
    def post(self, request):
        data = validated(self.InputSerializer, request.data)
        run = job_trigger(
            name=data["jobName"], actor=actor_of(request), tenant=self.tenant, request_id=request.request_id
        )
        body = {
            "jobId": f"job-{run.id}",
            "jobName": run.job_name,
            "status": "queued",
            "triggeredAt": iso_ms(run.queued_at),
            "triggeredBy": person(actor_of(request)),
            "estimatedStartTime": iso_ms(run.queued_at),
            "priority": "normal",
        }
        return envelope(body, message=f"Job {run.job_name} queued.")


_JOB_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,63}$")


class JobStatsApi(TenantAPIView):
    access = SUPER_ADMIN_ONLY

    @extend_schema(
        operation_id="admin_jobs_stats",
        summary="Get a background job's statistics",
        responses={200: v1_envelope("JobStatsEnvelope", obj())},
        tags=["admin"],
    )
    def get(self, request, job_name: str):
        if not _JOB_NAME.match(job_name):
            raise InvalidParameter(
                "Invalid jobName.", details={"jobName": "A job name is letters and digits."}
            )
        if job_name not in JOB_SPECS:
            raise ResourceNotFound(f"No job named {job_name!r}.", code="JOB_NOT_FOUND")
        return envelope(job_stats(name=job_name), message="Job statistics.")
