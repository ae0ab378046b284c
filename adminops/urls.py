from django.urls import path
from rest_framework.routers import SimpleRouter

from adminops import apis
from adminops.apis import admin, api_keys, oauth, realms

# The documented paths have no trailing slash and take any id text (the views answer 400 for a bad one).
router = SimpleRouter(trailing_slash=False, use_regex_path=False)
router.register("api-keys", api_keys.ApiKeyViewSet, basename="api-key")
router.register("oauth-clients", oauth.OAuthClientViewSet, basename="oauth-client")
router.register("admin/tenants", admin.AdminTenantViewSet, basename="admin-tenant")
router.register("admin/realms", realms.RealmViewSet, basename="admin-realm")

urlpatterns = [
    path("auth/token", apis.AuthTokenApi.as_view(), name="auth-token"),
    path("auth/token/refresh", apis.AuthTokenRefreshApi.as_view(), name="auth-token-refresh"),
    path("health", apis.ApiHealthApi.as_view(), name="api-health"),
    path("admin/health", apis.AdminHealthApi.as_view(), name="admin-health"),
    *router.urls,
    path("api-key/validate", api_keys.ApiKeyPublicValidateApi.as_view(), name="api-key-validate-public"),
    path(
        "admin/service-account/create", oauth.ServiceAccountCreateApi.as_view(), name="service-account-create"
    ),
    path("admin/audit-logs", admin.AuditLogListApi.as_view(), name="admin-audit-logs"),
    path("admin/jobs/trigger", admin.JobTriggerApi.as_view(), name="admin-jobs-trigger"),
    path("admin/jobs/<str:job_name>/stats", admin.JobStatsApi.as_view(), name="admin-job-stats"),
]
