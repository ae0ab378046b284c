from django.urls import path
from rest_framework.routers import SimpleRouter

from identity import signin
from identity.apis import api_keys, auth, oauth, oauth_provider, realms

# The documented paths have no trailing slash and take any id text (the views answer 400 for a bad one).
router = SimpleRouter(trailing_slash=False, use_regex_path=False)
router.register("api/v1/api-keys", api_keys.ApiKeyViewSet, basename="api-key")
router.register("api/v1/oauth-clients", oauth.OAuthClientViewSet, basename="oauth-client")
router.register("api/v1/admin/realms", realms.RealmViewSet, basename="admin-realm")

urlpatterns = [
    path("api/v1/auth/token", auth.AuthTokenApi.as_view(), name="auth-token"),
    path("api/v1/auth/token/refresh", auth.AuthTokenRefreshApi.as_view(), name="auth-token-refresh"),
    *router.urls,
    path(
        "api/v1/api-key/validate", api_keys.ApiKeyPublicValidateApi.as_view(), name="api-key-validate-public"
    ),
    path(
        "api/v1/admin/service-account/create",
        oauth.ServiceAccountCreateApi.as_view(),
        name="service-account-create",
    ),
    path("oauth/token", oauth_provider.OAuthTokenApi.as_view(), name="oauth-token"),
    path("oauth/revoke", oauth_provider.OAuthRevokeApi.as_view(), name="oauth-revoke"),
    path("oauth/introspect", oauth_provider.OAuthIntrospectApi.as_view(), name="oauth-introspect"),
    path("oauth/authorize", oauth_provider.OAuthAuthorizeView.as_view(), name="oauth-authorize"),
    path("oauth/login", signin.oauth_sign_in, name="oauth-login"),
]
