"""API keys: /api/v1/api-keys (create, list, get, validate, rotate, revoke) and /api/v1/api-key/validate."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers

from adminops.access import ADMIN_READ, ADMIN_WRITE
from adminops.apis.fields import ListOrCommaField, obj, record, strings, text, when
from adminops.audit import actor_of, client_ip
from adminops.models import ApiKey
from adminops.netaddr import is_ip
from adminops.people import person, tenant_ref, user_person
from adminops.scopes import permissions_of
from adminops.selectors import api_key_get, api_key_list, path_id
from adminops.services import api_keys as svc
from adminops.tenancy import tenant_id_from
from adminops.usage import api_key_usage_flush, api_key_window_counts
from config.api.envelopes import envelope
from config.api.errors import value_error
from config.api.pagination import page_request, paginate
from config.api.ratelimit import Bucket, principal_rate, rate_limit_hit
from config.api.schema import PaginationSerializer, v1_envelope
from config.api.timestamps import iso_ms
from config.api.validation import validated
from config.api.views import PublicAPIView, TenantAPIView


class ApiKeyRecordSerializer(serializers.Serializer):
    id = text()
    name = text()
    description = text()
    prefix = text()
    scopes = strings()
    toolPatterns = strings()
    protocol = text(allow_null=True)
    ipWhitelist = strings()
    environment = text()
    status = text()
    expiresAt = when()
    lastUsedAt = when()
    usageCount = serializers.IntegerField()
    createdAt = when()
    createdBy = obj(allow_null=True)
    updatedAt = when()
    updatedBy = obj(allow_null=True)
    tenant = obj()

    class Meta:
        ref_name = "ApiKeyRecord"


class ApiKeyCreatedSerializer(ApiKeyRecordSerializer):
    apiKey = text(help_text="The full key, shown this once.")

    class Meta:
        ref_name = "ApiKeyCreated"


def key_record(key: ApiKey) -> dict:
    return {
        "id": str(key.id),
        "name": key.name,
        "description": key.description,
        "prefix": key.prefix,
        "scopes": list(key.scopes),
        "toolPatterns": list(key.tool_patterns),
        "protocol": key.protocol or None,
        "ipWhitelist": list(key.ip_whitelist),
        "environment": key.environment,
        "status": _status(key),
        "expiresAt": iso_ms(key.expires_at),
        "lastUsedAt": iso_ms(key.last_used_at),
        "usageCount": key.usage_count,
        "createdAt": iso_ms(key.created_at),
        "createdBy": user_person(key.created_by),
        "updatedAt": iso_ms(key.updated_at),
        "updatedBy": user_person(key.updated_by),
        "tenant": tenant_ref(key.tenant),
    }


def _status(key: ApiKey) -> str:
    if key.status == ApiKey.Status.ACTIVE and key.expires_at and key.expires_at <= timezone.now():
        return ApiKey.Status.EXPIRED  # stops authenticating at once; the job updates the row later
    return key.status


def _rate_limit(key: ApiKey) -> dict:
    per_minute = svc._limit()
    return {
        "requestsPerMinute": per_minute,
        "requestsPerHour": per_minute * 60,
        "requestsPerDay": per_minute * 60 * 24,
        "currentUsage": {"minuteCount": svc.minute_count(key), **api_key_window_counts(key.id)},
    }


def key_detail(key: ApiKey) -> dict:
    now = timezone.now()
    days = None if key.expires_at is None else max(0, (key.expires_at - now).days)
    age_days = max(1, (now - (key.first_used_at or key.created_at)).days or 1)
    base = key_record(key)
    audit = {k: base.pop(k) for k in ("createdAt", "createdBy", "updatedAt", "updatedBy")}
    base.pop("lastUsedAt"), base.pop("usageCount")
    return base | {
        "permissions": permissions_of(key.scopes),
        "rateLimit": _rate_limit(key),
        "isExpired": _status(key) == ApiKey.Status.EXPIRED,
        "daysUntilExpiration": days,
        "usage": {
            "totalRequests": key.usage_count,
            "successfulRequests": key.success_count,
            "failedRequests": key.failure_count,
            "lastUsedAt": iso_ms(key.last_used_at),
            "lastUsedFromIp": key.last_used_ip or None,
            "firstUsedAt": iso_ms(key.first_used_at),
            "averageRequestsPerDay": round(key.usage_count / age_days, 2),
        },
        "audit": audit | {"lastRotatedAt": iso_ms(key.last_rotated_at), "rotationCount": key.rotation_count},
    }


class ApiKeyListCreateApi(TenantAPIView):
    access = {"GET": ADMIN_READ, "POST": ADMIN_WRITE}

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=255)
        description = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
        scopes = ListOrCommaField()
        protocol = serializers.ChoiceField(choices=["rest", "graphql"], required=False, allow_blank=True)
        ipWhitelist = ListOrCommaField(required=False, default=list)
        toolPatterns = ListOrCommaField(required=False, default=list)
        environment = serializers.ChoiceField(choices=ApiKey.Environment.values)
        expiresIn = serializers.IntegerField(min_value=1, max_value=3650, required=False, allow_null=True)

        class Meta:
            ref_name = "ApiKeyCreateInput"

    @extend_schema(
        operation_id="api_keys_list",
        parameters=[OpenApiParameter("limit", int), OpenApiParameter("offset", int)],
        responses={
            200: v1_envelope(
                "ApiKeyListEnvelope",
                record(
                    "ApiKeyList", apiKeys=ApiKeyRecordSerializer(many=True), pagination=PaginationSerializer()
                ),
            )
        },
        tags=["api-keys"],
    )
    def get(self, request):
        keys, pagination = paginate(api_key_list(tenant=self.tenant), page_request(request))
        return envelope({"apiKeys": [key_record(k) for k in keys], "pagination": pagination})

    @extend_schema(
        operation_id="api_keys_create",
        request=InputSerializer,
        responses={200: v1_envelope("ApiKeyCreateEnvelope", ApiKeyCreatedSerializer())},
        tags=["api-keys"],
    )
    def post(self, request):
        data = validated(self.InputSerializer, request.data)
        rate_limit_hit([Bucket("api-key-create", str(self.tenant.id), "100/h")])
        spec = svc.KeySpec(
            name=data["name"],
            scopes=data["scopes"],
            environment=data["environment"],
            description=data["description"],
            protocol=data.get("protocol") or "",
            ip_whitelist=tuple(data["ipWhitelist"]),
            tool_patterns=tuple(data["toolPatterns"]),
            expires_in_days=data.get("expiresIn"),
        )
        key, raw = svc.api_key_issue(
            tenant=self.tenant,
            spec=spec,
            actor=actor_of(request),
            user=_user(request),
            request_id=request.request_id,
        )
        body = key_record(key)
        for hidden in ("lastUsedAt", "usageCount", "updatedAt", "updatedBy"):
            body.pop(hidden)
        return envelope(
            {**body, "apiKey": raw}, message="API key created. Store the key now: it is not shown again."
        )


def _user(request):
    principal = request.auth
    return principal.obj if principal is not None and principal.is_user else None


class ApiKeyDetailApi(TenantAPIView):
    access = {"GET": ADMIN_READ, "DELETE": ADMIN_WRITE}

    @extend_schema(
        operation_id="api_keys_get",
        responses={200: v1_envelope("ApiKeyDetailEnvelope", obj())},
        tags=["api-keys"],
    )
    def get(self, request, key_id: str):
        key = api_key_get(tenant=self.tenant, key_id=path_id(key_id, name="keyId"))
        api_key_usage_flush(key)
        return envelope(key_detail(key), message="API key retrieved.")

    @extend_schema(
        operation_id="api_keys_revoke",
        parameters=[OpenApiParameter("permanent", bool, description="Delete the key's row for good.")],
        responses={200: v1_envelope("ApiKeyRevokeEnvelope", obj())},
        tags=["api-keys"],
    )
    def delete(self, request, key_id: str):
        permanent = _flag(request.query_params.get("permanent"), "permanent")
        key = api_key_get(tenant=self.tenant, key_id=path_id(key_id, name="keyId"))
        outcome = svc.api_key_revoke(
            tenant=self.tenant,
            key=key,
            permanent=permanent,
            actor=actor_of(request),
            request_id=request.request_id,
        )
        return envelope(_revoked(outcome, actor_of(request)), message="API key revoked.")


def _flag(raw: str | None, name: str) -> bool:
    from config.api.errors import InvalidParameter

    if raw in (None, "", "false", "0"):
        return False
    if raw in ("true", "1"):
        return True
    raise InvalidParameter(f"Invalid {name} parameter.", details={name: f"{name} must be true or false."})


def _revoked(outcome: dict, actor: dict) -> dict:
    key = outcome["key"]
    body = {
        "id": str(key.id),
        "name": key.name,
        "prefix": key.prefix,
        "previousStatus": outcome["previousStatus"],
        "status": ApiKey.Status.REVOKED,
        "revokedAt": iso_ms(outcome["revokedAt"]),
        "revokedBy": key.revoked_by or person(actor),
    }
    if outcome["deleted"]:
        return body | {"deleted": True}
    deletion = outcome["revokedAt"] + timedelta(days=svc.API_KEY_RETENTION_DAYS)
    return body | {
        "deleted": False,
        "retentionDays": svc.API_KEY_RETENTION_DAYS,
        "permanentDeletionDate": iso_ms(deletion),
    }


class ApiKeyRotateApi(TenantAPIView):
    access = ADMIN_WRITE

    class InputSerializer(serializers.Serializer):
        gracePeriodMinutes = serializers.IntegerField(min_value=0, max_value=10080, required=False, default=0)
        expiresIn = serializers.IntegerField(min_value=1, max_value=3650, required=False, allow_null=True)

        class Meta:
            ref_name = "ApiKeyRotateInput"

    @extend_schema(
        operation_id="api_keys_rotate",
        request=InputSerializer,
        responses={200: v1_envelope("ApiKeyRotateEnvelope", obj())},
        tags=["api-keys"],
    )
    def post(self, request, key_id: str):
        key = api_key_get(tenant=self.tenant, key_id=path_id(key_id, name="keyId"))
        data = validated(self.InputSerializer, request.data or {})
        rate_limit_hit([Bucket("api-key-rotate", str(key.id), "10/h")])
        rotation = svc.api_key_rotate(
            tenant=self.tenant,
            key=key,
            grace_minutes=data["gracePeriodMinutes"],
            expires_in_days=data.get("expiresIn"),
            actor=actor_of(request),
            user=_user(request),
            request_id=request.request_id,
        )
        return envelope(_rotated(rotation, actor_of(request)), message=_rotation_message(rotation))


def _rotation_message(rotation: svc.Rotation) -> str:
    if rotation.grace_minutes:
        return f"API key rotated; the previous key keeps working for {rotation.grace_minutes} minutes."
    return "API key rotated; the previous key no longer works."


def _rotated(rotation: svc.Rotation, actor: dict) -> dict:
    key = rotation.key
    base = {k: v for k, v in key_record(key).items() if k not in ("prefix", "lastUsedAt", "usageCount")}
    grace = None
    if rotation.grace_minutes:
        grace = {
            "enabled": True,
            "minutes": rotation.grace_minutes,
            "previousKeyValidUntil": iso_ms(key.previous_valid_until),
        }
    return base | {
        "newApiKey": rotation.raw,
        "newPrefix": key.prefix,
        "previousPrefix": rotation.previous_prefix,
        "rotation": {
            "rotatedAt": iso_ms(key.last_rotated_at),
            "rotatedBy": person(actor),
            "rotationCount": key.rotation_count,
            "previousKeyInvalidatedAt": iso_ms(key.previous_valid_until or key.last_rotated_at),
            "gracePeriod": grace,
        },
    }


class _ValidateInput(serializers.Serializer):
    apiKey = serializers.CharField(max_length=512, trim_whitespace=False)
    clientIp = serializers.CharField(max_length=64, required=False)
    scope = serializers.CharField(max_length=200, required=False)

    class Meta:
        ref_name = "ApiKeyValidateInput"


class _PublicValidateInput(_ValidateInput):
    clientIp = serializers.CharField(max_length=64)

    class Meta:
        ref_name = "ApiKeyPublicValidateInput"


VALIDATION_RESULT = record(
    "ApiKeyValidation",
    valid=serializers.BooleanField(),
    reason=text(required=False),
    details=text(required=False),
    apiKey=obj(required=False),
    tenant=obj(required=False),
)


def _check(request, data: dict, tenant_id=None) -> dict:
    ip = data.get("clientIp")
    if ip is not None and not is_ip(ip):
        raise value_error("clientIp", "clientIp must be an IPv4 or IPv6 address.")
    result = svc.api_key_check(
        raw=data["apiKey"],
        client_ip=ip,
        scope=data.get("scope"),
        tenant_id=tenant_id,
        request_id=request.request_id,
    )
    if result.reason is not None:
        body = {"valid": False, "reason": result.reason, "details": result.message}
        if result.reason == "IP_NOT_ALLOWED":
            body |= {"clientIp": ip, "allowedRanges": list(result.key.ip_whitelist)}
        return body
    key = result.key
    rate = _rate_limit(key)
    rate.pop("currentUsage")
    return {
        "valid": True,
        "apiKey": {
            "id": str(key.id),
            "name": key.name,
            "prefix": key.prefix,
            "status": key.status,
            "type": key.environment,
            "scopes": list(key.scopes),
            "permissions": permissions_of(key.scopes),
            "rateLimit": rate,
            "ipRestrictions": {
                "enabled": bool(key.ip_whitelist),
                "allowedIps": list(key.ip_whitelist),
                "clientIpValid": True,
            },
            "expiresAt": iso_ms(key.expires_at),
            "lastUsedAt": iso_ms(key.last_used_at),
            "createdAt": iso_ms(key.created_at),
        },
        "tenant": {"id": str(key.tenant.id), "name": key.tenant.name, "status": key.tenant.status},
    }


def _validate_rate_limit(request) -> None:
    rate_limit_hit([Bucket("api-key-validate", client_ip(request) or "-", principal_rate())])


class ApiKeyValidateApi(TenantAPIView):
    """POST /api/v1/api-keys/{keyId}/validate: an admin checks one of the tenant's keys."""

    access = ADMIN_READ

    @extend_schema(
        operation_id="api_keys_validate",
        request=_ValidateInput,
        responses={200: v1_envelope("ApiKeyValidateEnvelope", VALIDATION_RESULT)},
        tags=["api-keys"],
    )
    def post(self, request, key_id: str):
        key = api_key_get(tenant=self.tenant, key_id=path_id(key_id, name="keyId"))
        data = validated(_ValidateInput, request.data)
        _validate_rate_limit(request)
        body = _check(request, data, tenant_id=self.tenant.id)
        if body["valid"] and body["apiKey"]["id"] != str(key.id):
            body = {"valid": False, "reason": "INVALID_KEY", "details": "The API key is not this key."}
        return envelope(body, message="API key is valid." if body["valid"] else "API key is not valid.")


class ApiKeyPublicValidateApi(PublicAPIView):
    """POST /api/v1/api-key/validate: no bearer; the key is the credential being checked."""

    @extend_schema(
        operation_id="api_key_validate_public",
        request=_PublicValidateInput,
        responses={200: v1_envelope("ApiKeyPublicValidateEnvelope", VALIDATION_RESULT)},
        tags=["api-keys"],
        auth=[],
    )
    def post(self, request):
        data = validated(_PublicValidateInput, request.data)
        _validate_rate_limit(request)
        tenant_id = tenant_id_from(request)
        body = _check(request, data, tenant_id=tenant_id)
        return envelope(body, message="API key is valid." if body["valid"] else "API key is not valid.")
