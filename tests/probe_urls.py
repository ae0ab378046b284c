"""Test-only routes layered over the real URL conf: a crashing view under each prefix, a validating
view under each family, and a tenant-scoped object endpoint for the persona tests."""

from __future__ import annotations

import uuid

from django.urls import path
from rest_framework import serializers

from config.urls import urlpatterns as real_urlpatterns
from core.access import ADMIN_WRITE, VAULT_READ
from core.api.envelopes import envelope, tool_response, v2_response
from core.api.errors import ResourceNotFound
from core.api.validation import validated
from core.api.views import PublicAPIView, TenantAPIView
from identity.models import ApiKey


class Crash(PublicAPIView):
    def get(self, request):
        raise RuntimeError("boom: password=hunter2")


class ProbeInput(serializers.Serializer):
    name = serializers.CharField(max_length=10)
    flag = serializers.BooleanField(required=False)
    items = serializers.ListField(child=serializers.CharField(), required=False)
    config = serializers.DictField(required=False)
    count = serializers.IntegerField(required=False)
    kind = serializers.ChoiceField(choices=["a", "b"], required=False)
    url = serializers.URLField(required=False)


class Validate(PublicAPIView):
    def post(self, request):
        data = validated(ProbeInput, request.data)
        if request.path.startswith("/v2/"):
            return v2_response(data)
        if request.path.startswith("/api/v1/tools"):
            return tool_response(data)
        return envelope(data)


class ProbeKey(TenantAPIView):
    access = {"GET": VAULT_READ, "DELETE": ADMIN_WRITE}

    def _key(self, key_id: str) -> ApiKey:
        try:
            wanted = uuid.UUID(key_id)
        except ValueError:
            wanted = None
        key = ApiKey.objects.filter(tenant=self.tenant, id=wanted).first() if wanted else None
        if key is None:
            raise ResourceNotFound("API key not found.", code="API_KEY_NOT_FOUND")
        return key

    def get(self, request, key_id):
        return envelope({"id": str(self._key(key_id).id)})

    def delete(self, request, key_id):
        key = self._key(key_id)
        key.delete()
        return envelope({"id": str(key.id)})


urlpatterns = [
    path("api/v1/probe/crash", Crash.as_view()),
    path("v2/probe/crash", Crash.as_view()),
    path("api/v1/tools/probe/crash", Crash.as_view()),
    path("api/v1/probe/validate", Validate.as_view()),
    path("v2/probe/validate", Validate.as_view()),
    path("api/v1/tools/probe/validate", Validate.as_view()),
    path("api/v1/probe/keys/<str:key_id>", ProbeKey.as_view()),
    path("api/v1/tools/probe/keys/<str:key_id>", ProbeKey.as_view()),
    *real_urlpatterns,
]
