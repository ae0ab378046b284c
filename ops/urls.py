from django.contrib import admin
from django.urls import path
from rest_framework.routers import SimpleRouter

from identity.signin import console_sign_in
from ops.apis import admin as admin_apis
from ops.apis import health

router = SimpleRouter(trailing_slash=False, use_regex_path=False)
router.register("api/v1/admin/tenants", admin_apis.AdminTenantViewSet, basename="admin-tenant")

urlpatterns = [
    path("health", health.HealthApi.as_view(), name="health"),
    path("api/v1/health", health.ApiHealthApi.as_view(), name="api-health"),
    path("api/v1/admin/health", health.AdminHealthApi.as_view(), name="admin-health"),
    *router.urls,
    path("api/v1/admin/audit-logs", admin_apis.AuditLogListApi.as_view(), name="admin-audit-logs"),
    path("api/v1/admin/jobs/trigger", admin_apis.JobTriggerApi.as_view(), name="admin-jobs-trigger"),
    path("api/v1/admin/jobs/<str:job_name>/stats", admin_apis.JobStatsApi.as_view(), name="admin-job-stats"),
    # The operators' console (Django's admin site, set up in ops.admin), its sign-in counted.
    path("admin/login/", console_sign_in, name="console-sign-in"),
    path("admin/", admin.site.urls),
]
