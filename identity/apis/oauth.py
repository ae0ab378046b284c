"""OAuth clients (/api/v1/oauth-clients...) and service accounts; the provider's own endpoints
(/oauth/token, /oauth/authorize, ...) are in identity/apis/oauth_provider.py."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.decorators import action

from core.access import ADMIN, ADMIN_WRITE
from core.api.envelopes import envelope
from core.api.fields import StrictCharField, StrictChoiceField, StrictIntegerField
from core.api.ids import path_id
from core.api.schema import closed_input, one_of, v1_envelope
from core.api.timestamps import iso_ms
from core.api.validation import validated
from core.api.views import TenantAPIView, TenantViewSet
from core.audit import actor_of
from core.people import tenant_ref
from core.scopes import AREA_WILDCARDS, SCOPES, service_scopes
from identity.apis.fields import (
    PAGE_PARAMETERS,
    obj,
    page_envelope,
    per_day,
    record,
    strings,
    text,
    when,
)
from identity.models import OAuthClient
from identity.netaddr import NETWORK_PATTERN
from identity.provider import DEFAULT_LIFETIMES, GRANT_TYPES, LIFETIME_BOUNDS, lifetime
from identity.redirects import ORIGIN_PATTERN, REDIRECT_URI_PATTERN
from identity.selectors import oauth_client_get, oauth_client_list
from identity.services import oauth as svc

CLIENT_PATH_PREFIX = "client-"


class TokenSettingsSerializer(serializers.Serializer):
    accessTokenLifetime = serializers.IntegerField(help_text="Seconds.")
    refreshTokenLifetime = serializers.IntegerField(help_text="Seconds.")
    idTokenLifetime = serializers.IntegerField(help_text="Seconds.")

    class Meta:
        ref_name = "OAuthClientTokenSettings"


class OAuthClientRecordSerializer(serializers.Serializer):
    id = text()
    name = text()
    description = text()
    clientId = text()
    clientType = text()
    redirectUris = strings()
    grantTypes = strings()
    scopes = strings()
    toolPatterns = strings()
    allowedOrigins = strings()
    ipWhitelist = strings()
    status = text()
    pkceRequired = serializers.BooleanField()
    lastUsedAt = when()
    usageCount = serializers.IntegerField()
    createdAt = when()
    createdBy = obj(allow_null=True)
    tokenSettings = TokenSettingsSerializer()

    class Meta:
        ref_name = "OAuthClientRecord"


class OAuthClientCreatedSerializer(OAuthClientRecordSerializer):
    clientSecret = text(allow_null=True, help_text="Shown this once; null for a public client.")
    tenant = obj()

    class Meta:
        ref_name = "OAuthClientCreated"


def _token_settings(client: OAuthClient) -> dict:
    return {name: lifetime(client, name) for name in DEFAULT_LIFETIMES}


def client_record(client: OAuthClient) -> dict:
    return {
        "id": str(client.id),
        "name": client.name,
        "description": client.description,
        "clientId": client.client_id,
        "clientType": client.client_type,
        "redirectUris": list(client.redirect_uris),
        "grantTypes": list(client.grant_types),
        "scopes": list(client.scopes),
        "toolPatterns": list(client.tool_patterns),
        "allowedOrigins": list(client.allowed_origins),
        "ipWhitelist": list(client.ip_whitelist),
        "status": client.status,
        "pkceRequired": _pkce(client),
        "lastUsedAt": iso_ms(client.last_used_at),
        "usageCount": client.token_requests,
        "createdAt": iso_ms(client.created_at),
        "createdBy": client.created_by or None,
        "tokenSettings": _token_settings(client),
    }


def _pkce(client: OAuthClient) -> bool:
    return client.client_type == OAuthClient.ClientType.PUBLIC or "authorization_code" in client.grant_types


def client_detail(client: OAuthClient) -> dict:
    base = client_record(client)
    created = {"createdAt": base.pop("createdAt"), "createdBy": base.pop("createdBy")}
    return base | {
        "tokenSettings": base.pop("tokenSettings")
        | {"tokenFormat": "opaque", "refreshTokenRotation": True, "reuseInterval": 0},
        "pkceSettings": {
            "required": _pkce(client),
            "allowPlainChallenge": False,
            "supportedMethods": ["S256"],
        },
        "consent": {"requireConsent": True, "skipConsentForFirstParty": False, "consentLifetime": 0},
        "security": {
            "requireClientAuthentication": client.client_type == OAuthClient.ClientType.CONFIDENTIAL,
            "allowedAuthMethods": ["client_secret_basic", "client_secret_post"],
            "enforceHttps": True,
            "validateRedirectUri": True,
        },
        "usage": {
            "totalTokenRequests": client.token_requests,
            "successfulTokenRequests": client.successful_token_requests,
            "failedTokenRequests": client.failed_token_requests,
            "activeTokenCount": svc.active_token_count(client),
            "lastUsedAt": iso_ms(client.last_used_at),
            "lastUsedFromIp": client.last_used_ip or None,
            "firstUsedAt": iso_ms(client.first_used_at),
            "averageRequestsPerDay": per_day(client.token_requests, client),
        },
        "audit": created
        | {
            "updatedAt": iso_ms(client.updated_at),
            "updatedBy": client.updated_by or None,
            "lastSecretRotatedAt": iso_ms(client.last_secret_rotated_at),
            "secretRotationCount": client.secret_rotation_count,
        },
        "tenant": tenant_ref(client.tenant),
    }


class _AsSent(StrictCharField):
    """A JSON string kept as sent (no trimming): identity.services.oauth checks it against the rule
    its schema states (a 422 that says why)."""

    max_chars = 200

    def __init__(self, **kwargs):
        super().__init__(max_length=self.max_chars, trim_whitespace=False, **kwargs)


@extend_schema_field({"type": "string", "maxLength": 2000, "pattern": REDIRECT_URI_PATTERN})
class _RedirectUri(_AsSent):
    max_chars = 2000


@extend_schema_field({"type": "string", "maxLength": 2000, "pattern": ORIGIN_PATTERN})
class _Origin(_AsSent):
    max_chars = 2000


@extend_schema_field({"type": "string", "maxLength": 200, "pattern": NETWORK_PATTERN})
class _Network(_AsSent):
    pass


@extend_schema_field({"type": "string", "enum": list(GRANT_TYPES)})
class _Grant(_AsSent):
    pass


@extend_schema_field({"type": "string", "enum": [*SCOPES, *AREA_WILDCARDS]})
class _Scope(_AsSent):
    pass


def _list(child, **kwargs):
    return serializers.ListField(child=child, max_length=100, **kwargs)


def _lifetime(name: str):
    low, high = LIFETIME_BOUNDS[name]  # checked by the service (a 422 that names the bounds)
    schema = {"type": "integer", "minimum": low, "maximum": high, "description": "Seconds."}
    return extend_schema_field(schema)(type(name, (StrictIntegerField,), {}))(required=False)


class TokenSettingsInputSerializer(serializers.Serializer):
    accessTokenLifetime = _lifetime("accessTokenLifetime")
    refreshTokenLifetime = _lifetime("refreshTokenLifetime")

    class Meta:
        ref_name = "OAuthClientTokenSettingsInput"


# What identity.services.oauth refuses, by grant types: `client_credentials` for a confidential
# client only, `refresh_token` only beside `authorization_code`, which needs a redirect URI.
_CONFIDENTIAL = {"enum": [OAuthClient.ClientType.CONFIDENTIAL]}
_REDIRECTS = {"type": "array", "minItems": 1}


def _only(*grants: str) -> dict:
    return {"type": "array", "items": {"enum": list(grants)}}


_CLIENT_VARIANTS = (
    {"properties": {"clientType": _CONFIDENTIAL, "grantTypes": _only("client_credentials")}},
    {
        "properties": {
            "grantTypes": _only("authorization_code", "refresh_token") | {"not": _only("refresh_token")},
            "redirectUris": _REDIRECTS,
        },
        "required": ["redirectUris"],
    },
    {
        "properties": {
            "clientType": _CONFIDENTIAL,
            "grantTypes": {
                "allOf": [
                    {"not": _only("client_credentials", "refresh_token")},
                    {"not": _only("authorization_code", "refresh_token")},
                ]
            },
            "redirectUris": _REDIRECTS,
        },
        "required": ["redirectUris"],
    },
)


@extend_schema(tags=["oauth-clients"])
class OAuthClientViewSet(TenantViewSet):
    # /api/v1/oauth-clients: list and create; /api/v1/oauth-clients/{oauth_client_id}: get, update,
    # delete, rotate-secret. The path id is the record's `id`, bare or as `client-<uuid>`: named
    # `oauth_client_id`, not `client_id`, which readers of the schema (schemathesis's links among
    # them) would fill with the OAuth `clientId`.
    lookup_url_kwarg = "oauth_client_id"
    access = ADMIN

    @one_of(*_CLIENT_VARIANTS)
    class InputSerializer(serializers.Serializer):
        name = StrictCharField(max_length=255)
        description = StrictCharField(max_length=2000, required=False, allow_blank=True, default="")
        clientType = StrictChoiceField(choices=OAuthClient.ClientType.values)
        redirectUris = _list(_RedirectUri(), required=False, default=list)
        grantTypes = _list(_Grant(), min_length=1)
        scopes = _list(_Scope())
        allowedOrigins = _list(_Origin(), required=False, default=list)
        ipWhitelist = _list(_Network(), required=False, default=list)
        toolPatterns = _list(StrictCharField(max_length=200), required=False, default=list)
        tokenSettings = TokenSettingsInputSerializer(required=False, default=dict)

        class Meta:
            ref_name = "OAuthClientCreateInput"

    @closed_input
    class PatchSerializer(serializers.Serializer):
        name = StrictCharField(max_length=255, required=False)
        description = StrictCharField(max_length=2000, required=False, allow_blank=True)
        clientType = StrictChoiceField(choices=OAuthClient.ClientType.values, required=False)
        redirectUris = _list(_RedirectUri(), required=False)
        grantTypes = _list(_Grant(), required=False, min_length=1)
        scopes = _list(_Scope(), required=False)
        allowedOrigins = _list(_Origin(), required=False)
        ipWhitelist = _list(_Network(), required=False)
        toolPatterns = _list(StrictCharField(max_length=200), required=False)
        tokenSettings = TokenSettingsInputSerializer(required=False)
        status = StrictChoiceField(choices=["active", "inactive"], required=False)

        class Meta:
            ref_name = "OAuthClientUpdateInput"

    def get_object(self, *, include_deleted: bool = True) -> OAuthClient:
        return oauth_client_get(
            tenant=self.tenant,
            client_id=path_id(self.kwargs["oauth_client_id"], name="clientId", prefix=CLIENT_PATH_PREFIX),
            include_deleted=include_deleted,
        )

    @extend_schema(
        operation_id="oauth_clients_list",
        summary="List the tenant's OAuth clients",
        parameters=PAGE_PARAMETERS,
        responses={
            200: page_envelope(
                "OAuthClientListEnvelope",
                "OAuthClientList",
                "clients",
                OAuthClientRecordSerializer(many=True),
            )
        },
    )
    def list(self, request):
        return self.page(oauth_client_list(tenant=self.tenant), "clients", client_record)

    @extend_schema(
        operation_id="oauth_clients_create",
        summary="Create an OAuth client",
        request=InputSerializer,
        responses={200: v1_envelope("OAuthClientCreateEnvelope", OAuthClientCreatedSerializer())},
    )
    def create(self, request):
        data = validated(self.InputSerializer, request.data)
        spec = svc.ClientSpec(
            name=data["name"],
            description=data["description"],
            client_type=data["clientType"],
            redirect_uris=data["redirectUris"],
            grant_types=data["grantTypes"],
            scopes=data["scopes"],
            allowed_origins=data["allowedOrigins"],
            ip_whitelist=data["ipWhitelist"],
            tool_patterns=data["toolPatterns"],
            token_settings=dict(data["tokenSettings"]),
        )
        client, secret = svc.oauth_client_create(
            tenant=self.tenant, spec=spec, actor=actor_of(request), request_id=request.request_id
        )
        body = client_record(client) | {
            "clientSecret": secret,
            "tenant": tenant_ref(self.tenant),
        }
        if secret is None:  # a public client authenticates with PKCE alone
            return envelope(body, message="OAuth client created. It is public: it has no secret.")
        return envelope(body, message="OAuth client created. Store the secret now: it is not shown again.")

    @extend_schema(
        operation_id="oauth_clients_get",
        summary="Get an OAuth client with its settings and usage",
        responses={200: v1_envelope("OAuthClientDetailEnvelope", obj())},
    )
    def retrieve(self, request, oauth_client_id: str):
        return envelope(client_detail(self.get_object()), message="OAuth client retrieved.")

    @extend_schema(
        operation_id="oauth_clients_update",
        summary="Update an OAuth client",
        request=PatchSerializer,
        responses={200: v1_envelope("OAuthClientUpdateEnvelope", obj())},
    )
    def partial_update(self, request, oauth_client_id: str):
        client = self.get_object(include_deleted=False)
        data = validated(self.PatchSerializer, request.data, reject_unknown=True)
        client, diff = svc.oauth_client_update(
            tenant=self.tenant,
            client=client,
            changes=dict(data),
            actor=actor_of(request),
            request_id=request.request_id,
        )
        body = client_record(client) | {
            "updatedAt": iso_ms(client.updated_at),
            "updatedBy": client.updated_by or None,
            "changes": diff,
        }
        return envelope(body, message="OAuth client updated.")

    @extend_schema(
        operation_id="oauth_clients_delete",
        summary="Delete an OAuth client and revoke its tokens",
        responses={200: v1_envelope("OAuthClientDeleteEnvelope", obj())},
    )
    def destroy(self, request, oauth_client_id: str):
        client = self.get_object()
        client, revoked, previous = svc.oauth_client_delete(
            tenant=self.tenant,
            client=self.get_object(),
            actor=actor_of(request),
            request_id=request.request_id,
        )
        body = {
            "id": str(client.id),
            "name": client.name,
            "clientId": client.client_id,
            "previousStatus": previous,
            "status": client.status,
            "deletedAt": iso_ms(client.deleted_at),
            "deletedBy": client.deleted_by,
            "tokensRevoked": revoked,
            "activeSessionsTerminated": 0,
        }
        return envelope(body, message="OAuth client deleted; its tokens were revoked.")

    @extend_schema(
        operation_id="oauth_clients_rotate_secret",
        summary="Rotate an OAuth client's secret",
        request=None,
        responses={200: v1_envelope("OAuthClientRotateSecretEnvelope", obj())},
    )
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request, oauth_client_id: str):
        client = self.get_object()
        client, secret = svc.oauth_client_rotate_secret(
            tenant=self.tenant,
            client=self.get_object(),
            actor=actor_of(request),
            request_id=request.request_id,
        )
        body = {
            "id": str(client.id),
            "clientId": client.client_id,
            "clientSecret": secret,
            "lastSecretRotatedAt": iso_ms(client.last_secret_rotated_at),
            "secretRotationCount": client.secret_rotation_count,
        }
        return envelope(body, message="Client secret rotated. Store it now: it is not shown again.")


class ServiceAccountCreateApi(TenantAPIView):
    access = ADMIN_WRITE

    @extend_schema(
        operation_id="service_account_create",
        summary="Create a service account",
        request=None,
        responses={
            200: v1_envelope(
                "ServiceAccountCreateEnvelope",
                record(
                    "ServiceAccountCreated",
                    id=text(),
                    name=text(),
                    clientId=text(),
                    clientSecret=text(),
                    type=text(),
                    status=text(),
                    permissions=strings(),
                    scopes=strings(),
                    createdAt=when(),
                    createdBy=obj(),
                    tenant=obj(),
                ),
            )
        },
        tags=["admin"],
    )
    def post(self, request):
        account, secret = svc.service_account_create(
            tenant=self.tenant, actor=actor_of(request), request_id=request.request_id
        )
        body = {
            "id": f"sa-{account.id}",
            "name": account.name,
            "clientId": account.client_id,
            "clientSecret": secret,
            "type": "service_account",
            "status": account.status,
            "permissions": list(account.permissions),
            "scopes": service_scopes(account.permissions),
            "createdAt": iso_ms(account.created_at),
            "createdBy": account.created_by,
            "tenant": tenant_ref(self.tenant),
        }
        return envelope(body, message="Service account created. Store the secret now: it is not shown again.")
