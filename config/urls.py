from django.conf import settings
from django.contrib import admin
from django.contrib.auth.views import LoginView
from django.urls import include, path, re_path

from adminops.apis import HealthApi, oauth_provider
from config.api import handlers
from config.api.docs import RedocView, SchemaView, SwaggerView
from toolhub.apis.mcp import McpApi

urlpatterns = [
    path("health", HealthApi.as_view(), name="health"),
    # No path matches patterns of two of these apps, so their order only decides how many patterns
    # a request passes before its own: the busiest first.
    path("api/v1/", include("vault.urls")),
    path("api/v1/", include("toolhub.urls")),
    path("api/v1/", include("adminops.urls")),
    path("oauth/token", oauth_provider.OAuthTokenApi.as_view(), name="oauth-token"),
    path("oauth/revoke", oauth_provider.OAuthRevokeApi.as_view(), name="oauth-revoke"),
    path("oauth/introspect", oauth_provider.OAuthIntrospectApi.as_view(), name="oauth-introspect"),
    path("oauth/authorize", oauth_provider.OAuthAuthorizeView.as_view(), name="oauth-authorize"),
    path("oauth/login", LoginView.as_view(template_name="oauth/login.html"), name="oauth-login"),
    path("mcp", McpApi.as_view(), name="mcp"),
    path("v2/", include("ingestion.urls")),
    path("v2/", include("knowledge.urls")),
    path("api/schema/", SchemaView.as_view(), name="schema"),
    path("api/docs/", SwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", RedocView.as_view(url_name="schema"), name="redoc"),
    path("admin/", admin.site.urls),
    *([path("", include("bench.views"))] if settings.BENCH_ENDPOINTS else []),
    # Anything else, whatever the method: a JSON 404 in the shape of its prefix (also with DEBUG
    # on). The admin answers its own paths, with its CSRF protection.
    re_path(r"^.*$", handlers.not_found),
]

handler400 = "config.api.handlers.bad_request"
handler403 = "config.api.handlers.permission_denied"
handler404 = "config.api.handlers.not_found"
handler500 = "config.api.handlers.server_error"
