from django.urls import path

from adminops import apis

urlpatterns = [
    path("auth/token", apis.AuthTokenApi.as_view(), name="auth-token"),
    path("auth/token/refresh", apis.AuthTokenRefreshApi.as_view(), name="auth-token-refresh"),
    path("health", apis.ApiHealthApi.as_view(), name="api-health"),
    path("admin/health", apis.AdminHealthApi.as_view(), name="admin-health"),
]
