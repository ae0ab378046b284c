"""The OAuth 2 provider's endpoints, django-oauth-toolkit behind each (docs/oauth.md):
POST /oauth/token (RFC 6749), POST /oauth/revoke (RFC 7009), POST /oauth/introspect (RFC 7662),
GET|POST /oauth/authorize (the consent page) and /oauth/login (its sign-in). Answers and errors
take the RFCs' shapes, not the /api/v1 envelope."""

from __future__ import annotations

import io
import json
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.http import HttpResponse
from django.urls import reverse_lazy
from drf_spectacular.utils import extend_schema
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.views import AuthorizationView, IntrospectTokenView
from oauth2_provider.views.mixins import OAuthLibMixin
from oauthlib.common import Request as OAuthlibRequest
from oauthlib.oauth2 import AccessDeniedError
from oauthlib.oauth2.rfc6749.errors import CustomOAuth2Error
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
from core.models import Tenant
from identity.apis.fields import has_control, record, text
from identity.models import OAuthClient
from identity.provider import client_authentication_failed, tenant_scope, without_tenant
from identity.selectors import member_scopes


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


class OAuthAuthorizeView(AuthorizationView):
    """The consent page: a member of the client's tenant signs in and allows or denies the
    application the scopes it asks for, within what the member's roles allow. A client of no
    tenant (it registered itself, or is known by its metadata document) acts in the workspace the
    person picks among theirs, with the scopes asked for that their roles there allow.

    A request the library or this service refuses (`plain` PKCE, no `redirect_uri`: the checks
    of identity.provider.Server; a resource served elsewhere, ...) is refused before the sign-in
    page, not after it."""

    template_name = "oauth/authorize.html"
    login_url = reverse_lazy("oauth-login")

    def dispatch(self, request, *args, **kwargs):
        if request.method == "GET" and not request.user.is_authenticated:
            try:
                self._request_checked(request)
            except OAuthToolkitError as error:
                return self.error_response(error, application=None)
        return super().dispatch(request, *args, **kwargs)

    def validate_authorization_request(self, request):
        scopes, credentials = self._request_checked(request)
        client = OAuthClient.objects.get(client_id=credentials["client_id"])
        if client.tenant_id is not None:
            _member_may_allow(request.user, client, credentials, scopes)
        elif not _workspaces(request.user):
            _deny(credentials, "You are not a member of any workspace.")
        return scopes, credentials

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        application = context.get("application")
        if application is not None and application.tenant_id is None:
            context["workspaces"] = _workspaces(self.request.user)
        context["scopes"] = without_tenant(context.get("scopes") or [])
        context["returns_to"] = urlsplit(context.get("redirect_uri") or "").netloc
        return context

    def _request_checked(self, request):
        """The library's checks, then that every resource asked for is on this service."""
        scopes, credentials = super().validate_authorization_request(request)
        foreign = resource_elsewhere(request, request.GET.getlist("resource"))
        if foreign is not None:
            description = f"The resource {foreign!r} is not served here."
            _redirect_error(CustomOAuth2Error(error="invalid_target", description=description), credentials)
        return scopes, credentials

    def error_response(self, error, application, **kwargs):
        """The library names no client for errors found while checking the request; the client
        named in it decides where the browser may be sent back (loopback http, RFC 8252)."""
        named = getattr(error.oauthlib_error, "client_id", None)
        if application is None and named:
            application = OAuthClient.objects.filter(client_id=named).first()
        return super().error_response(error, application, **kwargs)

    def create_authorization_response(self, request, scopes, credentials, allow):
        if allow:  # the form's hidden fields come back from the browser: check them again
            client = OAuthClient.objects.get(client_id=credentials["client_id"])
            if client.tenant_id is not None:
                _member_may_allow(request.user, client, credentials, scopes.split())
            else:
                scopes = _bound_scopes(request, credentials, without_tenant(scopes.split()))
        return super().create_authorization_response(request, scopes, credentials, allow)


def resource_elsewhere(request, resources: list[str]) -> str | None:
    """The first RFC 8707 resource that is not on this service's origin (a token is only ever
    for this service's own endpoints), or None."""
    here = urlsplit(request.build_absolute_uri("/"))
    for resource in resources:
        try:
            there = urlsplit(resource)
            same = (there.scheme, there.netloc.lower()) == (here.scheme, here.netloc.lower())
        except ValueError:
            same = False
        if not same:
            return resource
    return None


def _member_may_allow(user, client: OAuthClient, credentials: dict, scopes: list[str]) -> None:
    allowed = member_scopes(user_id=user.pk, tenant_id=client.tenant_id, scopes=scopes)
    if allowed is None:
        _deny(credentials, "You are not a member of this application's workspace.")
    if len(allowed) < len(scopes):
        _deny(credentials, "Your roles do not allow every scope this application asks for.")


def _bound_scopes(request, credentials: dict, scopes: list[str]) -> str:
    """A client of no tenant: the workspace the person picked (one of theirs), and the scopes asked
    for that their roles there allow, as the grant's scope (identity.provider.TENANT_SCOPE)."""
    picked = request.POST.get("tenant", "")
    tenant = next((t for t in _workspaces(request.user) if str(t.id) == picked), None)
    if tenant is None:
        _deny(credentials, "Pick one of your workspaces.")
    allowed = member_scopes(user_id=request.user.pk, tenant_id=tenant.id, scopes=scopes) or []
    if not allowed:
        _deny(credentials, f"Your roles in {tenant.name} allow none of the scopes this application asks for.")
    return " ".join([*allowed, tenant_scope(tenant.id)])


def _workspaces(user) -> list[Tenant]:
    """The active tenants the person belongs to, by name."""
    return list(
        Tenant.objects.filter(memberships__user_id=user.pk, status=Tenant.Status.ACTIVE).order_by("name")
    )


def _deny(credentials: dict, problem: str):
    _redirect_error(AccessDeniedError(description=problem), credentials)


def _redirect_error(error, credentials: dict):
    """Send the browser back to the client with `error`, naming the client so that its own schemes
    decide where it may go (OAuthAuthorizeView.error_response)."""
    error.state, error.client_id = credentials.get("state"), credentials.get("client_id")
    raise OAuthToolkitError(error=error, redirect_uri=credentials["redirect_uri"])


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
