"""JWT sign-in and refresh: POST /api/v1/auth/token and /api/v1/auth/token/refresh."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers

from core.api.envelopes import envelope
from core.api.fields import UntrimmedText
from core.api.schema import v1_envelope
from core.api.validation import validated
from core.api.views import PublicAPIView
from core.audit import client_ip
from core.tenancy import tenant_id_hint
from identity.services.users import auth_login, auth_refresh, sign_in_rate_limit

TokenPair = inline_serializer(
    name="TokenPair",
    fields={
        "access": serializers.CharField(),
        "refresh": serializers.CharField(required=False),
        "tokenType": serializers.CharField(),
        "expiresIn": serializers.IntegerField(),
    },
)


class AuthTokenApi(PublicAPIView):
    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = UntrimmedText(max_length=1024)

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
        sign_in_rate_limit(ip_address=client_ip(request), username=data["username"])
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
        sign_in_rate_limit(ip_address=client_ip(request), username="refresh")
        tokens = auth_refresh(
            refresh=data["refresh"], ip_address=client_ip(request), request_id=request.request_id
        )
        return envelope(tokens, message="Token refreshed.")
