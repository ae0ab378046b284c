"""POST /oauth/register: dynamic client registration (RFC 7591) for public clients, such as the
desktop agents and IDEs that connect to /mcp with nothing but its address. Rate limited per
address (RATE_LIMIT_CLIENT_REGISTRATION), audited; answers and errors take the RFC's shapes."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ParseError
from rest_framework.response import Response

from core.api.ratelimit import Bucket, rate_limit_hit
from core.api.views import PublicAPIView
from core.audit import client_ip
from identity.apis.fields import record, strings, text
from identity.apis.oauth_provider import no_store, oauth_error_response
from identity.models import OAuthClient
from identity.redirects import REDIRECT_URI_PATTERN
from identity.services.registration import (
    CLIENT_NAME_PATTERN,
    MAX_REDIRECT_URIS,
    REGISTRATION_GRANTS,
    SCOPE_PATTERN,
    ClientMetadataInvalid,
    oauth_client_register,
)


def _stated(schema: dict, **kwargs) -> serializers.Field:
    return extend_schema_field(schema)(type("Stated", (serializers.JSONField,), {}))(**kwargs)


class OAuthRegisterApi(PublicAPIView):
    # The metadata as identity.services.registration reads it (the body is not this serializer's:
    # the service checks it, and answers in RFC 7591's shape); unknown fields are ignored.
    class MetadataSerializer(serializers.Serializer):
        redirect_uris = _stated(
            {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_REDIRECT_URIS,
                "items": {"type": "string", "pattern": REDIRECT_URI_PATTERN},
            }
        )
        client_name = _stated(
            {"type": "string", "maxLength": 255, "pattern": CLIENT_NAME_PATTERN, "nullable": True},
            required=False,
            help_text="Shown on the consent page; null or absent: `Application at <host>`.",
        )
        grant_types = _stated(
            {
                "type": "array",
                "minItems": 1,
                "items": {"type": "string", "enum": list(REGISTRATION_GRANTS)},
                "not": {"items": {"enum": ["refresh_token"]}},
            },
            required=False,
            help_text="authorization_code, and refresh_token if wanted (default authorization_code).",
        )
        response_types = _stated(
            {"type": "array", "minItems": 1, "maxItems": 1, "items": {"type": "string", "enum": ["code"]}},
            required=False,
        )
        token_endpoint_auth_method = _stated({"type": "string", "enum": ["none"]}, required=False)
        scope = _stated(
            {"type": "string", "pattern": SCOPE_PATTERN, "nullable": True},
            required=False,
            help_text="Space-separated registrable scopes; null or absent: all of them.",
        )

        class Meta:
            ref_name = "OAuthClientMetadata"

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        rate = settings.RATE_LIMIT_CLIENT_REGISTRATION
        rate_limit_hit([Bucket("oauth-register-ip", client_ip(request) or "-", rate)])

    def handle_exception(self, exc):
        if isinstance(exc, ClientMetadataInvalid):
            return no_store(Response({"error": exc.error, "error_description": exc.description}, status=400))
        if isinstance(exc, ParseError):
            body = {"error": "invalid_client_metadata", "error_description": "The body is not JSON."}
            return no_store(Response(body, status=400))
        return no_store(oauth_error_response(exc)) or super().handle_exception(exc)

    @extend_schema(
        operation_id="oauth_register",
        summary="Register a public client (RFC 7591)",
        request=MetadataSerializer,
        responses={
            201: record(
                "OAuthClientInformation",
                client_id=text(),
                client_id_issued_at=serializers.IntegerField(),
                client_name=text(),
                redirect_uris=strings(),
                grant_types=strings(),
                response_types=strings(),
                token_endpoint_auth_method=text(),
                scope=text(),
            ),
            400: record("OAuthRegisterError", error=text(), error_description=text()),
            429: record("OAuthRegisterError429", error=text(), error_description=text()),
        },
        tags=["auth"],
        auth=[],
    )
    def post(self, request):
        if not isinstance(request.data, dict):
            raise ClientMetadataInvalid("invalid_client_metadata", "The body is a JSON object (RFC 7591).")
        client = oauth_client_register(
            metadata=request.data, ip=client_ip(request), request_id=request.request_id
        )
        return no_store(Response(client_information(client), status=201))


def client_information(client: OAuthClient) -> dict:
    """RFC 7591 section 3.2.1: what the client registered, as this service keeps it."""
    return {
        "client_id": client.client_id,
        "client_id_issued_at": int(client.created_at.timestamp()),
        "client_name": client.name,
        "redirect_uris": client.redirect_uris,
        "grant_types": client.grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "scope": " ".join(client.scopes),
    }
