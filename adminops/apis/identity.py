"""Identity and health endpoints: JWT login/refresh, /health, /api/v1/health, /api/v1/admin/health."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from adminops.audit import client_ip
from adminops.health import health_report, uptime_text
from adminops.services import auth_login, auth_refresh
from adminops.tenancy import SUPER_ADMIN, tenant_id_hint, tenant_resolve
from config.api import metrics
from config.api.envelopes import envelope
from config.api.errors import ApiError
from config.api.ratelimit import Bucket, rate_limit_hit
from config.api.schema import v1_envelope
from config.api.timestamps import utc_timestamp
from config.api.validation import validated
from config.api.views import PublicAPIView, RateLimitHeadersMixin, rate_limit_count

TokenPair = inline_serializer(
    name="TokenPair",
    fields={
        "access": serializers.CharField(),
        "refresh": serializers.CharField(required=False),
        "tokenType": serializers.CharField(),
        "expiresIn": serializers.IntegerField(),
    },
)


def _login_rate_limit(request, who: str) -> None:
    from django.conf import settings

    rate = settings.RATE_LIMIT_LOGIN
    rate_limit_hit([Bucket("login-ip", client_ip(request) or "-", rate), Bucket("login", who, rate)])


class AuthTokenApi(PublicAPIView):
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=1024, trim_whitespace=False)

        class Meta:
            ref_name = "AuthTokenInput"

    @extend_schema(
        operation_id="auth_token_obtain",
        summary="Obtain a JWT pair with a username and password",
        request=InputSerializer,
        responses={200: v1_envelope("AuthTokenEnvelope", TokenPair)},
        tags=["auth"],
        auth=[],
    )
    def post(self, request):
        data = validated(self.InputSerializer, request.data)
        _login_rate_limit(request, data["username"])
        tokens = auth_login(
            username=data["username"],
            password=data["password"],
            ip_address=client_ip(request),
            request_id=request.request_id,
            tenant_hint=tenant_id_hint(request),
        )
        return envelope(tokens, message="Authenticated.")


class AuthTokenRefreshApi(PublicAPIView):
    class InputSerializer(serializers.Serializer):
        refresh = serializers.CharField(max_length=4096)

        class Meta:
            ref_name = "AuthTokenRefreshInput"

    @extend_schema(
        operation_id="auth_token_refresh",
        summary="Refresh a JWT access token",
        request=InputSerializer,
        responses={200: v1_envelope("AuthTokenRefreshEnvelope", TokenPair)},
        tags=["auth"],
        auth=[],
    )
    def post(self, request):
        data = validated(self.InputSerializer, request.data)
        _login_rate_limit(request, "refresh")
        return envelope(auth_refresh(refresh=data["refresh"]), message="Token refreshed.")


_HealthBody = inline_serializer(
    name="HealthStatus",
    fields={
        "status": serializers.ChoiceField(choices=["healthy", "degraded", "unhealthy"]),
        "version": serializers.CharField(),
        "timestamp": serializers.CharField(),
        "environment": serializers.CharField(required=False),
        "uptime": serializers.CharField(required=False),
        "services": serializers.DictField(child=serializers.CharField(), required=False),
    },
)


class HealthApi(PublicAPIView):
    """GET /health: the load balancer's check."""

    detailed = False

    @extend_schema(
        summary="Service health (the load balancer's check)",
        responses={200: _HealthBody, 503: _HealthBody},
        tags=["health"],
        auth=[],
    )
    def get(self, request):
        report = health_report()
        body = {"status": report.status, "version": _version(), "timestamp": utc_timestamp()}
        if self.detailed:
            body |= {"environment": _environment(), "uptime": uptime_text(), "services": report.services}
        return Response(body, status=report.http_status)


@extend_schema_view(get=extend_schema(summary="Service health with the state of each dependency"))
class ApiHealthApi(HealthApi):
    """GET /api/v1/health: the same check with the state of each dependency."""

    detailed = True


class AdminHealthApi(RateLimitHeadersMixin, APIView):
    """GET /api/v1/admin/health: status for anyone; services, metrics and issues for an admin."""

    permission_classes = [AllowAny]

    @extend_schema(
        responses={
            200: v1_envelope(
                "AdminHealthEnvelope",
                inline_serializer(
                    name="AdminHealth",
                    fields={
                        "status": serializers.CharField(),
                        "version": serializers.CharField(),
                        "uptime": serializers.CharField(),
                        "timestamp": serializers.CharField(),
                        "services": serializers.DictField(child=serializers.CharField()),
                        "metrics": serializers.DictField(),
                        "issues": serializers.ListField(child=serializers.DictField()),
                    },
                ),
            ),
            503: _HealthBody,
        },
        summary="Health for operators: services, metrics and issues for an admin",
        tags=["health"],
    )
    def get(self, request):
        report = health_report()
        if not _is_admin(request):
            return Response(
                {"status": report.status, "timestamp": utc_timestamp()}, status=report.http_status
            )
        data = {
            "status": report.status,
            "version": _version(),
            "uptime": uptime_text(),
            "timestamp": utc_timestamp(),
            "services": report.services,
            "metrics": metrics.snapshot(),
            "issues": report.issues,
        }
        healthy = report.http_status == 200
        return envelope(
            data, message=f"Service is {report.status}.", status=report.http_status, success=healthy
        )


def _is_admin(request) -> bool:
    principal = request.auth
    if principal is None:
        return False
    if principal.is_super_admin:
        return True
    try:
        ctx = tenant_resolve(request, principal)
    except ApiError:
        return False
    rate_limit_count(request, ctx)
    if principal.is_user:
        return "tenant_admin" in ctx.roles or SUPER_ADMIN in ctx.roles
    return principal.has_scope("admin:read")


def _version() -> str:
    from django.conf import settings

    return settings.VERSION


def _environment() -> str:
    from django.conf import settings

    return settings.ENVIRONMENT
