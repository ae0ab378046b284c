"""Authorization-server metadata (RFC 8414), at its well-known path and at the OpenID discovery
path: what a client needs to find the endpoints and rules of this service's OAuth provider with
nothing but its address. The document is django-oauth-toolkit's (`OAuthServerMetadataView`), read
from OAUTH2_PROVIDER and the routes of the `oauth2_provider` namespace (identity/urls.py)."""

from __future__ import annotations

import json

from django.http import JsonResponse
from drf_spectacular.utils import extend_schema
from oauth2_provider.settings import oauth2_settings
from oauth2_provider.views import OAuthServerMetadataView
from rest_framework import serializers

from core.api.views import PublicAPIView
from identity.apis.fields import record


class ServerMetadataView(OAuthServerMetadataView):
    """The library's document. Its issuer is the one the library puts in every authorization
    response (`iss`, RFC 9207), whichever discovery path the document is read at."""

    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        document = json.loads(response.content)
        document["issuer"] = oauth2_settings.oauth2_authorization_server_issuer(request)
        if "introspection_endpoint_auth_methods_supported" in document:  # confidential clients only
            methods = document["introspection_endpoint_auth_methods_supported"]
            document["introspection_endpoint_auth_methods_supported"] = [m for m in methods if m != "none"]
        answer = JsonResponse(document)
        answer["Access-Control-Allow-Origin"] = "*"  # browser-based clients discover it too
        return answer


def _strings():
    return serializers.ListField(child=serializers.CharField())


def _url(required: bool = True):
    return serializers.URLField(required=required)


SERVER_METADATA = record(
    "OAuthServerMetadata",
    issuer=_url(),
    authorization_endpoint=_url(),
    token_endpoint=_url(),
    registration_endpoint=_url(required=False),
    revocation_endpoint=_url(),
    introspection_endpoint=_url(),
    response_types_supported=_strings(),
    grant_types_supported=_strings(),
    scopes_supported=_strings(),
    code_challenge_methods_supported=_strings(),
    token_endpoint_auth_methods_supported=_strings(),
    revocation_endpoint_auth_methods_supported=_strings(),
    introspection_endpoint_auth_methods_supported=_strings(),
    client_id_metadata_document_supported=serializers.BooleanField(),
    authorization_response_iss_parameter_supported=serializers.BooleanField(),
)


class AuthorizationServerMetadataApi(PublicAPIView):
    """GET /.well-known/oauth-authorization-server (RFC 8414)."""

    @extend_schema(
        operation_id="oauth_authorization_server_metadata",
        summary="Authorization-server metadata (RFC 8414)",
        responses={200: SERVER_METADATA},
        tags=["auth"],
        auth=[],
    )
    def get(self, request):
        return ServerMetadataView.as_view()(request)


class OpenIdConfigurationApi(PublicAPIView):
    """GET /.well-known/openid-configuration: the same document, where OpenID clients look."""

    @extend_schema(
        operation_id="openid_configuration",
        summary="Authorization-server metadata at the OpenID discovery path",
        responses={200: SERVER_METADATA},
        tags=["auth"],
        auth=[],
    )
    def get(self, request):
        return ServerMetadataView.as_view()(request)
