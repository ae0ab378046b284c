"""GET|POST /oauth/authorize: the consent page (django-oauth-toolkit's AuthorizationView, with
this service's rules), signed in through /oauth/login (docs/oauth.md)."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.urls import reverse_lazy
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.views import AuthorizationView
from oauthlib.oauth2 import AccessDeniedError
from oauthlib.oauth2.rfc6749.errors import CustomOAuth2Error

from core.models import Tenant
from identity.models import OAuthClient
from identity.provider import resource_elsewhere, tenant_scope, without_tenant
from identity.selectors import member_scopes


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
