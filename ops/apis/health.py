"""Health endpoints: GET /health, /api/v1/health and /api/v1/admin/health (DESIGN section 4)."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api import metrics
from core.api.envelopes import envelope
from core.api.errors import ApiError
from core.api.schema import v1_envelope
from core.api.timestamps import utc_timestamp
from core.api.views import PublicAPIView, RateLimitHeadersMixin, rate_limit_count
from core.health import health_report, uptime_text
from core.tenancy import SUPER_ADMIN, tenant_resolve

_HealthBody = inline_serializer(
    name="HealthStatus",
    fields={
        "status": serializers.ChoiceField(choices=["healthy", "degraded", "unhealthy"]),
        "version": serializers.CharField(),
        "timestamp": serializers.CharField(),
        "environment": serializers.CharField(required=False),
        "uptime": serializers.CharField(required=False),
        "services": serializers.DictField(child=serializers.CharField(), required=False),
        "issues": serializers.ListField(
            child=inline_serializer(
                name="HealthIssue",
                fields={"service": serializers.CharField(), "message": serializers.CharField()},
            ),
            required=False,
            help_text="What is wrong, while the service is not healthy.",
        ),
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
        if report.issues:
            body["issues"] = [{"service": i["service"], "message": i["message"]} for i in report.issues]
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
    return settings.VERSION


def _environment() -> str:
    return settings.ENVIRONMENT
