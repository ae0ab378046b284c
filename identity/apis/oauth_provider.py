"""The OAuth 2 provider's endpoints, django-oauth-toolkit behind each (docs/oauth.md):
POST /oauth/token (RFC 6749), POST /oauth/revoke (RFC 7009), POST /oauth/introspect (RFC 7662);
the consent page is identity.apis.consent. Answers and errors take the RFCs' shapes, not the
/api/v1 envelope."""

from __future__ import annotations

import io
import json
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from oauth2_provider.views import IntrospectTokenView
from oauth2_provider.views.mixins import OAuthLibMixin
from oauthlib.common import Request as OAuthlibRequest
from rest_framework import serializers
from rest_framework.authentication import BasicAuthentication
from rest_framework.exceptions import APIException, AuthenticationFailed
from rest_framework.parsers import FormParser
from rest_framework.response import Response

from core.api.errors import ApiError
from core.api.parsers import read_limited
from core.api.ratelimit import Bucket, rate_limit_hit
from core.api.views import PublicAPIView
from core.audit import client_ip
from identity.apis.fields import has_control, record, text
from identity.models import OAuthClient
from identity.provider import client_authentication_failed, resource_elsewhere


class OAuthError(Exception):
    """An RFC 6749 section 5.2 error answered before the library sees the request."""

    def __init__(self, error: str, description: str, *, status: int = 400) -> None:
        super().__init__(description)
        self.error, self.description, self.status = error, description, status


class LimitedFormParser(FormParser):
    """application/x-www-form-urlencoded with the 1 MiB body limit."""

    def parse(self, stream, media_type=None, parser_context=None):
        return super().parse(io.BytesIO(read_limited(stream)), media_type, parser_context)


def _error(name: str):
    return record(name, error=text(), error_description=text(required=False))  # optional (RFC 6749 5.2)


class ProviderApi(OAuthLibMixin, PublicAPIView):
    """Form-encoded, rate limited per address (client secrets are guessed here), never cached."""

    parser_classes = [LimitedFormParser]

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        rate_limit_hit([Bucket("oauth-token-ip", client_ip(request) or "-", settings.RATE_LIMIT_LOGIN)])
        # Reading the form also answers 415 for a body that is not one. A client id is printable:
        # anything else cannot name a client (and PostgreSQL refuses a NUL in a query).
        if any(
            has_control(named or "")
            for named in (_basic_client_id(request), _single(request.data, "client_id"))
        ):
            raise OAuthError("invalid_client", "Client authentication failed.", status=401)

    def handle_exception(self, exc):
        return no_store(oauth_error_response(exc)) or super().handle_exception(exc)


class OAuthTokenApi(ProviderApi):
    class FormSerializer(serializers.Serializer):
        grant_type = serializers.ChoiceField(["authorization_code", "client_credentials", "refresh_token"])
        client_id = serializers.CharField(required=False)
        client_secret = serializers.CharField(required=False)
        scope = serializers.CharField(required=False)
        code = serializers.CharField(required=False)
        redirect_uri = serializers.CharField(required=False)
        code_verifier = serializers.CharField(required=False)
        refresh_token = serializers.CharField(required=False)

        class Meta:
            ref_name = "OAuthTokenForm"

    @extend_schema(
        operation_id="oauth_token",
        summary="Issue tokens (authorization code with PKCE, client credentials, refresh token)",
        request={"application/x-www-form-urlencoded": FormSerializer},
        responses={
            200: record(
                "OAuthTokenResponse",
                access_token=text(),
                token_type=text(),
                expires_in=serializers.IntegerField(),
                scope=text(),
                refresh_token=text(required=False, help_text="Authorization-code grants only."),
            ),
            400: _error("OAuthTokenError"),
            401: _error("OAuthTokenError401"),
            429: _error("OAuthTokenError429"),
        },
        tags=["auth"],
        auth=[],
    )
    def post(self, request):
        grant_type = _single(request.data, "grant_type")
        if not grant_type:
            raise OAuthError("invalid_request", "grant_type is required.")
        if grant_type == "authorization_code" and not _single(request.data, "redirect_uri"):
            # Every authorization request carries one (identity.provider.Server), so every
            # exchange must repeat it (RFC 6749 section 4.1.3).
            raise OAuthError(
                "invalid_request", "redirect_uri is required: repeat the authorization request's."
            )
        foreign = resource_elsewhere(request, _every(request.data, "resource"))
        if foreign is not None:
            raise OAuthError("invalid_target", f"The resource {foreign!r} is not served here.")
        _uri, headers, body, status = self.create_token_response(request)
        if status == 401:
            _denied(request)
        return _answer(request, headers, body, status)


class BasicClientId(BasicAuthentication):
    """DRF's reading of HTTP Basic credentials, for the client id alone."""

    def authenticate_credentials(self, userid, password, request=None):
        return (userid, None)


def _basic_client_id(request) -> str | None:
    try:
        named = BasicClientId().authenticate(request)
    except AuthenticationFailed:
        return None
    return named[0] if named else None


def _denied(request) -> None:
    client_id = _basic_client_id(request) or _single(request.data, "client_id")
    client = OAuthClient.objects.filter(client_id=client_id).first() if client_id else None
    if client is not None:
        client_authentication_failed(
            client, ip=client_ip(request), grant_type=_single(request.data, "grant_type")
        )


class OAuthRevokeApi(ProviderApi):
    class FormSerializer(serializers.Serializer):
        token = serializers.CharField()
        token_type_hint = serializers.ChoiceField(["access_token", "refresh_token"], required=False)

        class Meta:
            ref_name = "OAuthRevokeForm"

    @extend_schema(
        operation_id="oauth_revoke",
        summary="Revoke an access or refresh token (RFC 7009)",
        request={"application/x-www-form-urlencoded": FormSerializer},
        responses={200: None, 400: _error("OAuthRevokeError"), 401: _error("OAuthRevokeError401")},
        tags=["auth"],
        auth=[],
    )
    def post(self, request):
        _uri, headers, body, status = self.create_revocation_response(request)
        return _answer(request, headers, body, status)


class OAuthIntrospectApi(ProviderApi):
    class FormSerializer(serializers.Serializer):
        token = serializers.CharField()

        class Meta:
            ref_name = "OAuthIntrospectForm"

    @extend_schema(
        operation_id="oauth_introspect",
        summary="Introspect an access token (RFC 7662); confidential clients, own tenant's tokens",
        request={"application/x-www-form-urlencoded": FormSerializer},
        responses={
            200: record(
                "OAuthIntrospection",
                active=serializers.BooleanField(),
                scope=text(required=False),
                exp=serializers.IntegerField(required=False),
                client_id=text(required=False),
                username=text(required=False),
            ),
            400: _error("OAuthIntrospectError"),
            401: _error("OAuthIntrospectError401"),
        },
        tags=["auth"],
        auth=[],
    )
    def post(self, request):
        caller = self._authenticated_client(request)
        answer = IntrospectTokenView.get_token_response(_single(request.data, "token"))
        data = json.loads(answer.content)
        if (
            data.get("active")
            and not OAuthClient.objects.filter(
                client_id=data.get("client_id"), tenant_id=caller.tenant_id
            ).exists()
        ):
            data = {"active": False}  # another tenant's token is none of this client's business
        return no_store(Response(data, status=answer.status_code))

    def _authenticated_client(self, request) -> OAuthClient:
        core = self.get_oauthlib_core()
        body = urlencode(core.extract_body(request))
        checked = OAuthlibRequest(request.build_absolute_uri(), "POST", body, core.extract_headers(request))
        if not core.server.request_validator.authenticate_client(checked) or (
            checked.client.client_type != OAuthClient.ClientType.CONFIDENTIAL
        ):
            raise OAuthError("invalid_client", "Client authentication failed.", status=401)
        return checked.client


def _answer(request, headers: dict, body: str | None, status: int) -> HttpResponse:
    response = HttpResponse(body or "", status=status, content_type="application/json")
    for name, value in headers.items():
        response[name] = value
    if status == 401 and request.META.get("HTTP_AUTHORIZATION", "")[:6].lower() == "basic ":
        # RFC 6749 section 5.2: the challenge names the scheme the client authenticated with.
        response["WWW-Authenticate"] = 'Basic realm="oauth"'
    return no_store(response)


def _every(form, name: str) -> list[str]:
    return [v for v in (form.getlist(name) if hasattr(form, "getlist") else [form.get(name)]) if v]


def _single(form, name: str) -> str | None:
    values = _every(form, name)
    if len(values) > 1:
        raise OAuthError("invalid_request", f"{name} was given more than once.")
    return values[0] if values else None


def oauth_error_response(exc) -> Response | None:
    if isinstance(exc, OAuthError):
        response = Response({"error": exc.error, "error_description": exc.description}, status=exc.status)
        if exc.status == 401:
            response["WWW-Authenticate"] = 'Basic realm="oauth"'
        return response
    if isinstance(exc, ApiError) and exc.status_code == 429:
        response = Response({"error": "slow_down", "error_description": exc.message}, status=429)
        response["Retry-After"] = exc.headers.get("Retry-After", "60")
        return response
    if isinstance(exc, ApiError | APIException):
        status = getattr(exc, "status_code", 400)
        description = getattr(exc, "message", None) or str(getattr(exc, "detail", exc))
        if status == 415:
            description = "The body must be application/x-www-form-urlencoded."
        return Response({"error": "invalid_request", "error_description": description}, status=status)
    return None


def no_store(response):
    if response is not None:
        response["Cache-Control"] = "no-store"
        response["Pragma"] = "no-cache"
    return response
