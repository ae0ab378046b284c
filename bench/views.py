"""Baseline endpoints for the load harness, routed only when BENCH_ENDPOINTS is on (never in
production). Each does the bare minimum of what a real endpoint does, on the same server in the same
run, so that the table's ratios say what our own code costs on top."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.urls import path

from core.api.envelopes import envelope
from core.api.views import PublicAPIView
from core.models import AuditEntry
from vault.models import Credential


class BareApi(PublicAPIView):
    """A DRF view returning the envelope: the floor of any endpoint."""

    def get(self, request):
        return envelope({"ok": True})


class SelectApi(PublicAPIView):
    """The details endpoint's one primary lookup, (tenant, integration id), and nothing else."""

    def get(self, request, integration_id):
        row = (
            Credential.objects.filter(tenant_id=request.headers["x-tenantid"], integration_id=integration_id)
            .values("id", "integration_id", "name", "auth_type", "status", "created_at")
            .first()
        )
        return envelope({"id": str(row["id"]), "integrationId": row["integration_id"], "name": row["name"]})


class InsertApi(PublicAPIView):
    """The store endpoint's INSERT pair (credential row + audit row) in one transaction. The audit
    row links onto no chain head, so the database's link check (core migration 0002) looks for one
    and leaves the row out: the pair is two INSERT statements, one of them writing no row."""

    def post(self, request):
        tenant_id = request.headers["x-tenantid"]
        with transaction.atomic():
            row = Credential.objects.create(
                tenant_id=tenant_id,
                integration_id=request.data["integrationId"],
                name="baseline",
                auth_type="api_key",
                created_by={},
            )
            AuditEntry.objects.create(
                chain=f"bench-{uuid.uuid4().hex}",
                seq=1,
                tenant_id=tenant_id,
                action="BASELINE",
                category="bench",
                prev_hash="0" * 64,
                hash="0" * 64,
            )
        return envelope({"id": str(row.id)})


urlpatterns = [
    path("bench/baseline/bare", BareApi.as_view()),
    path("bench/baseline/select/<str:integration_id>", SelectApi.as_view()),
    path("bench/baseline/insert", InsertApi.as_view()),
]
