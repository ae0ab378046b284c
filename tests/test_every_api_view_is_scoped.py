"""Every route is either tenant scoped or declared public here, on purpose."""

from django.contrib.auth.views import LoginView
from django.urls import URLPattern, URLResolver, get_resolver

from core.api import handlers
from core.api.docs import RedocView, SchemaView, SwaggerView
from core.api.views import PublicAPIView, TenantAPIView, TenantViewSet
from identity import signin
from identity.apis import auth, consent, metadata, oauth_provider, registration
from identity.apis.api_keys import ApiKeyPublicValidateApi
from ops.apis import health
from toolhub.apis.mcp import McpResourceMetadataApi

PUBLIC_VIEWS = {
    health.HealthApi,
    health.ApiHealthApi,
    health.AdminHealthApi,  # status for anyone; details only after authentication and a role check
    auth.AuthTokenApi,
    auth.AuthTokenRefreshApi,
    oauth_provider.OAuthTokenApi,  # client authentication is the request itself (RFC 6749)
    oauth_provider.OAuthRevokeApi,
    oauth_provider.OAuthIntrospectApi,
    consent.OAuthAuthorizeView,  # the consent page: the user's browser session, sign-in first
    LoginView,  # the consent page's sign-in (counted: identity.signin)
    metadata.AuthorizationServerMetadataApi,  # discovery (RFC 8414): a client has nothing else yet
    metadata.OpenIdConfigurationApi,
    registration.OAuthRegisterApi,  # RFC 7591: a client without an account; rate limited per address
    McpResourceMetadataApi,  # RFC 9728: where a client without credentials learns how to get them
    ApiKeyPublicValidateApi,  # the key being checked is the credential; rate limited per address
    SchemaView,  # the schema and the docs' pages
    SwaggerView,
    RedocView,
}
PUBLIC_FUNCTIONS = {
    handlers.not_found,
    signin.console_sign_in,  # the console's sign-in page, counted
}


def iter_routes(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.app_name == "admin":
                continue  # the Django admin: staff sessions, not the API
            yield from iter_routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def test_every_api_view_is_tenant_scoped_or_declared_public():
    for route, callback in iter_routes(get_resolver().url_patterns):
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        if view is None:
            assert callback in PUBLIC_FUNCTIONS, f"{route}: a function view that is not declared public"
            continue
        if view in PUBLIC_VIEWS:
            continue
        assert issubclass(view, TenantAPIView), f"{route} -> {view.__name__} is not tenant scoped"


def test_public_views_are_listed_on_purpose():
    routed = {getattr(cb, "cls", None) for _, cb in iter_routes(get_resolver().url_patterns)}
    for view in routed:
        if view is not None and issubclass(view, PublicAPIView):
            assert view in PUBLIC_VIEWS, f"{view.__name__} is public but not listed in PUBLIC_VIEWS"


def test_every_viewset_action_declares_the_access_it_needs():
    for route, callback in iter_routes(get_resolver().url_patterns):
        view = getattr(callback, "cls", None)
        if view is None or not issubclass(view, TenantViewSet):
            continue
        if not isinstance(view.access, dict) or "access" in callback.initkwargs:
            continue  # one access for every action, or the route's own (`@action(access=...)`)
        missing = set(callback.actions.values()) - set(view.access)  # as_view() keeps the route's actions
        assert not missing, f"{route} -> {view.__name__} declares no access for {sorted(missing)}"
