"""API keys: /api/v1/api-keys (create, list, get, validate, rotate, revoke) and /api/v1/api-key/validate."""

from __future__ import annotations

import re
from datetime import timedelta

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.decorators import action

from core.access import ADMIN, ADMIN_READ
from core.api.envelopes import envelope
from core.api.errors import InvalidParameter
from core.api.fields import StrictCharField, UntrimmedText
from core.api.ids import path_id
from core.api.ratelimit import Bucket, principal_rate, rate_limit_hit
from core.api.schema import closed_input, v1_envelope
from core.api.timestamps import iso_ms
from core.api.validation import validated
from core.api.views import PublicAPIView, TenantViewSet
from core.audit import actor_of, client_ip
from core.people import person, tenant_ref, user_person
from core.scopes import AREA_WILDCARDS, SCOPES, permissions_of
from core.tenancy import tenant_id_from
from identity.apis.fields import (
    PAGE_PARAMETERS,
    ListOrCommaField,
    obj,
    page_envelope,
    per_day,
    record,
    strings,
    text,
    when,
)
from identity.models import ApiKey
from identity.selectors import api_key_get, api_key_list
from identity.services import api_keys as svc
from identity.usage import api_key_usage_flush, api_key_window_counts


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
    connections = serializers.DictField(
        child=serializers.CharField(), help_text="Pinned tool-hub connections, {domain: conn_…}."
    )

    class Meta:
        ref_name = "ApiKeyRecord"


class ApiKeyCreatedSerializer(ApiKeyRecordSerializer):
    apiKey = text(help_text="The full key, shown this once.")
    # A new key has no use and no update yet: the create answer leaves these out (`create`).
    lastUsedAt = None
    usageCount = None
    updatedAt = None
    updatedBy = None

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
        "status": svc.api_key_state(key),
        "expiresAt": iso_ms(key.expires_at),
        "lastUsedAt": iso_ms(key.last_used_at),
        "usageCount": key.usage_count,
        "createdAt": iso_ms(key.created_at),
        "createdBy": person(key.created_by_actor) or user_person(key.created_by),
        "updatedAt": iso_ms(key.updated_at),
        "updatedBy": user_person(key.updated_by),
        "tenant": tenant_ref(key.tenant),
        "connections": dict(key.connections or {}),
    }


def _rate_limit() -> dict:
    per_minute = svc.per_minute_limit()
    return {
        "requestsPerMinute": per_minute,
        "requestsPerHour": per_minute * 60,
        "requestsPerDay": per_minute * 60 * 24,
    }


def key_detail(key: ApiKey) -> dict:
    days = None if key.expires_at is None else max(0, (key.expires_at - timezone.now()).days)
    base = key_record(key)
    audit = {k: base.pop(k) for k in ("createdAt", "createdBy", "updatedAt", "updatedBy")}
    base.pop("lastUsedAt"), base.pop("usageCount")
    return base | {
        "permissions": permissions_of(key.scopes),
        "rateLimit": _rate_limit()
        | {"currentUsage": {"minuteCount": svc.minute_count(key), **api_key_window_counts(key.id)}},
        "isExpired": svc.api_key_state(key) == ApiKey.Status.EXPIRED,
        "daysUntilExpiration": days,
        "usage": {
            "totalRequests": key.usage_count,
            "successfulRequests": key.success_count,
            "failedRequests": key.failure_count,
            "lastUsedAt": iso_ms(key.last_used_at),
            "lastUsedFromIp": key.last_used_ip or None,
            "firstUsedAt": iso_ms(key.first_used_at),
            "averageRequestsPerDay": per_day(key.usage_count, key),
        },
        "audit": audit | {"lastRotatedAt": iso_ms(key.last_rotated_at), "rotationCount": key.rotation_count},
    }


def _flag(raw: str | None, name: str) -> bool:
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


@extend_schema_field({"anyOf": [{"type": "string", "format": "ipv4"}, {"type": "string", "format": "ipv6"}]})
class _IpAddressText(StrictCharField):
    """An IPv4 or IPv6 address (the service checks it; anything else is 422)."""

    def __init__(self, **kwargs):
        super().__init__(max_length=64, **kwargs)


class _ValidateInput(serializers.Serializer):
    apiKey = UntrimmedText(max_length=512)
    clientIp = _IpAddressText(required=False)
    scope = StrictCharField(max_length=200, required=False)

    class Meta:
        ref_name = "ApiKeyValidateInput"


class _PublicValidateInput(_ValidateInput):
    clientIp = _IpAddressText()

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
            "rateLimit": _rate_limit(),
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


_SCOPE = "(?:" + "|".join(re.escape(scope) for scope in (*SCOPES, *AREA_WILDCARDS)) + ")"


@extend_schema_field(
    {
        "oneOf": [
            {"type": "array", "items": {"type": "string", "enum": [*SCOPES, *AREA_WILDCARDS]}, "minItems": 1},
            # split at commas, items trimmed, empty ones dropped (`core.scopes.split_list`)
            {"type": "string", "pattern": f"^[\\s,]*{_SCOPE}(?:\\s*,[\\s,]*{_SCOPE})*[\\s,]*$"},
        ]
    }
)
class _KeyScopes(ListOrCommaField):
    """At least one of this service's scopes (`svc.scopes_check`), as a list or a comma-separated
    string."""


def _pins_field(**kwargs) -> serializers.DictField:
    return serializers.DictField(
        child=serializers.CharField(max_length=64),
        help_text="Pinned connections, {domain: connection id}: a tool call of the domain without a "
        "connection_id runs on this connection (when healthy) rather than the domain's default.",
        **kwargs,
    )


def _user(request):
    principal = request.auth
    return principal.obj if principal is not None and principal.is_user else None


def _accountable(request):
    """The person accountable for a key made by this request: the user, or the one behind the API
    key that makes it."""
    principal = request.auth
    if principal is not None and principal.kind == "api_key":
        return principal.obj.created_by
    return _user(request)


@extend_schema(tags=["api-keys"])
class ApiKeyViewSet(TenantViewSet):
    # /api/v1/api-keys: list and create; /api/v1/api-keys/{keyId}: get, revoke, rotate, validate.
    lookup_url_kwarg = "key_id"
    access = ADMIN.but(validate=ADMIN_READ)

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=255)
        description = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")
        scopes = _KeyScopes()
        protocol = serializers.ChoiceField(choices=["rest", "graphql"], required=False, allow_blank=True)
        ipWhitelist = ListOrCommaField(required=False, default=list)
        toolPatterns = ListOrCommaField(required=False, default=list)
        environment = serializers.ChoiceField(choices=ApiKey.Environment.values)
        expiresIn = serializers.IntegerField(min_value=1, max_value=3650, required=False, allow_null=True)
        connections = _pins_field(required=False, default=dict)

        class Meta:
            ref_name = "ApiKeyCreateInput"

    @closed_input
    class UpdateSerializer(serializers.Serializer):
        connections = _pins_field()

        class Meta:
            ref_name = "ApiKeyUpdateInput"

    class RotateSerializer(serializers.Serializer):
        gracePeriodMinutes = serializers.IntegerField(min_value=0, max_value=10080, required=False, default=0)
        expiresIn = serializers.IntegerField(min_value=1, max_value=3650, required=False, allow_null=True)

        class Meta:
            ref_name = "ApiKeyRotateInput"

    def get_object(self) -> ApiKey:
        return api_key_get(tenant=self.tenant, key_id=path_id(self.kwargs["key_id"], name="keyId"))

    @extend_schema(
        operation_id="api_keys_list",
        summary="List the tenant's API keys",
        parameters=PAGE_PARAMETERS,
        responses={
            200: page_envelope(
                "ApiKeyListEnvelope", "ApiKeyList", "apiKeys", ApiKeyRecordSerializer(many=True)
            )
        },
    )
    def list(self, request):
        return self.page(api_key_list(tenant=self.tenant), "apiKeys", key_record)

    @extend_schema(
        operation_id="api_keys_create",
        summary="Create an API key",
        request=InputSerializer,
        responses={200: v1_envelope("ApiKeyCreateEnvelope", ApiKeyCreatedSerializer())},
    )
    def create(self, request):
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
            connections=data["connections"],
        )
        key, raw = svc.api_key_issue(
            tenant=self.tenant,
            spec=spec,
            actor=actor_of(request),
            user=_accountable(request),
            request_id=request.request_id,
        )
        body = key_record(key)
        for hidden in ("lastUsedAt", "usageCount", "updatedAt", "updatedBy"):
            body.pop(hidden)
        return envelope(
            {**body, "apiKey": raw}, message="API key created. Store the key now: it is not shown again."
        )

    @extend_schema(
        operation_id="api_keys_get",
        summary="Get an API key with its usage",
        responses={200: v1_envelope("ApiKeyDetailEnvelope", obj())},
    )
    def retrieve(self, request, key_id: str):
        key = self.get_object()
        api_key_usage_flush(key)
        return envelope(key_detail(key), message="API key retrieved.")

    @extend_schema(
        operation_id="api_keys_update",
        summary="Update an API key's pinned connections",
        request=UpdateSerializer,
        responses={200: v1_envelope("ApiKeyUpdateEnvelope", ApiKeyRecordSerializer())},
    )
    def partial_update(self, request, key_id: str):
        data = validated(self.UpdateSerializer, request.data, reject_unknown=True)
        key = svc.api_key_update(
            tenant=self.tenant,
            key=self.get_object(),
            connections=data["connections"],
            actor=actor_of(request),
            user=_user(request),
            request_id=request.request_id,
        )
        return envelope(key_record(key), message="API key updated.")

    @extend_schema(
        operation_id="api_keys_revoke",
        summary="Revoke or delete an API key",
        parameters=[OpenApiParameter("permanent", bool, description="Delete the key's row for good.")],
        responses={200: v1_envelope("ApiKeyRevokeEnvelope", obj())},
    )
    def destroy(self, request, key_id: str):
        permanent = _flag(request.query_params.get("permanent"), "permanent")
        outcome = svc.api_key_revoke(
            tenant=self.tenant,
            key=self.get_object(),
            permanent=permanent,
            actor=actor_of(request),
            request_id=request.request_id,
        )
        return envelope(_revoked(outcome, actor_of(request)), message="API key revoked.")

    @extend_schema(
        operation_id="api_keys_rotate",
        summary="Rotate an API key",
        request=RotateSerializer,
        responses={200: v1_envelope("ApiKeyRotateEnvelope", obj())},
    )
    @action(detail=True, methods=["post"])
    def rotate(self, request, key_id: str):
        key = self.get_object()
        data = validated(self.RotateSerializer, request.data or {})
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

    @extend_schema(
        operation_id="api_keys_validate",
        summary="Validate a key as this API key",
        request=_ValidateInput,
        responses={200: v1_envelope("ApiKeyValidateEnvelope", VALIDATION_RESULT)},
    )
    @action(detail=True, methods=["post"])
    def validate(self, request, key_id: str):
        """POST /api/v1/api-keys/{keyId}/validate: an admin checks one of the tenant's keys."""
        key = self.get_object()
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
        summary="Validate an API key (no bearer)",
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
