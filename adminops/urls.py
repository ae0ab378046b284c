from django.urls import path

from adminops import apis
from adminops.apis import admin, api_keys, oauth

urlpatterns = [
    path("auth/token", apis.AuthTokenApi.as_view(), name="auth-token"),
    path("auth/token/refresh", apis.AuthTokenRefreshApi.as_view(), name="auth-token-refresh"),
    path("health", apis.ApiHealthApi.as_view(), name="api-health"),
    path("admin/health", apis.AdminHealthApi.as_view(), name="admin-health"),
    path("api-keys", api_keys.ApiKeyListCreateApi.as_view(), name="api-keys"),
    path("api-keys/<str:key_id>", api_keys.ApiKeyDetailApi.as_view(), name="api-key"),
    path("api-keys/<str:key_id>/rotate", api_keys.ApiKeyRotateApi.as_view(), name="api-key-rotate"),
    path("api-keys/<str:key_id>/validate", api_keys.ApiKeyValidateApi.as_view(), name="api-key-validate"),
    path("api-key/validate", api_keys.ApiKeyPublicValidateApi.as_view(), name="api-key-validate-public"),
    path("oauth-clients", oauth.OAuthClientListCreateApi.as_view(), name="oauth-clients"),
    path("oauth-clients/<str:client_id>", oauth.OAuthClientDetailApi.as_view(), name="oauth-client"),
    path(
        "oauth-clients/<str:client_id>/rotate-secret",
        oauth.OAuthClientRotateSecretApi.as_view(),
        name="oauth-client-rotate-secret",
    ),
    path(
        "admin/service-account/create", oauth.ServiceAccountCreateApi.as_view(), name="service-account-create"
    ),
    path("admin/tenants/<str:tenant_id>", admin.TenantDetailApi.as_view(), name="admin-tenant"),
    path("admin/tenants/<str:tenant_id>/stats", admin.TenantStatsApi.as_view(), name="admin-tenant-stats"),
    path("admin/audit-logs", admin.AuditLogListApi.as_view(), name="admin-audit-logs"),
    path("admin/jobs/trigger", admin.JobTriggerApi.as_view(), name="admin-jobs-trigger"),
    path("admin/jobs/<str:job_name>/stats", admin.JobStatsApi.as_view(), name="admin-job-stats"),
]
