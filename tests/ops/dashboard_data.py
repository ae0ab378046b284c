"""A tenant with something for every dashboard panel, made the way the services store it. The
numbers the dashboard must show for one such tenant are in EXPECTED."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from core.api.ratelimit import Bucket, principal_rate, rate_limit_hit
from core.principals import Principal
from core.usage import usage_tally
from ingestion.models import SyncConfiguration, SyncRun
from ingestion.services.failed_files import failed_file_record
from tests import factories
from toolhub.models import Approval, ExecutionRecord
from vault.models import Credential

EXPECTED = {
    "approvals": "2 tool calls waiting for an approver",
    "tool_calls": "5 calls: 3 succeeded, 1 failed.",
    "credentials": "1 expired, 1 expire within 7 days, 1 failed their last token refresh.",
    "runs": "4 runs: 1 queued or running, 1 failed or partly failed.",
    "failed_files": "3 files failed to ingest",
}


def seed_dashboard(tenant, *, key_calls: int = 0) -> None:
    now = timezone.now()
    _approvals(tenant, now)
    _tool_calls(tenant, now)
    _credentials(tenant, now)
    _runs(tenant, now)
    for n, error_type in enumerate(["PARSE_ERROR", "PARSE_ERROR", "TIMEOUT"]):
        failed_file_record(
            tenant=tenant,
            platform_domain="files.example.com",
            content_type="sitelib_attachment",
            file_id=f"{tenant.name}-file-{n}",
            file_name=f"{tenant.name}-report-{n}.pdf",
            source_url=f"https://files.example.com/{tenant.name}/{n}.pdf",
            error_type=error_type,
            error_message="The document could not be parsed.",
            failed_at=now - timedelta(hours=n),
        )
    if key_calls:
        key, _raw = factories.make_api_key(tenant, name=f"{tenant.name}-busy-key")
        principal = Principal.of_api_key(key)
        bucket = Bucket("principal", principal.rate_key, principal_rate())
        for _ in range(key_calls):  # the calls as the rate limiter and the usage counters saw them
            rate_limit_hit(
                [bucket], tally=usage_tally(principal=principal, tenant_id=str(tenant.id), ip=None)
            )


def _approvals(tenant, now) -> None:
    for n, (status, expires) in enumerate(
        [("pending", 1), ("pending", 2), ("pending", -1), ("approved", 1)]  # -1: expired unanswered
    ):
        Approval.objects.create(
            tenant=tenant,
            tool_key=f"itsm.incident.delete.{tenant.name}",
            risk_level="destructive",
            idempotency_key=f"key-{n}",
            fingerprint="0" * 64,
            requester={"type": "api_key", "id": "k", "name": f"{tenant.name}-ci"},
            requester_key="api_key:k",
            status=status,
            expires_at=now + timedelta(hours=expires),
            created_at=now - timedelta(minutes=30 * (n + 1)),
        )


def _tool_calls(tenant, now) -> None:
    calls = [("success", 0)] * 3 + [("error", 2), ("approval_required", 0), ("success", 30)]
    for outcome, hours_ago in calls:  # the last one is older than a day
        ExecutionRecord.objects.create(
            tenant=tenant,
            principal={"type": "api_key", "id": "k", "name": "ci"},
            principal_key="api_key:k",
            tool_key=f"wiki.page.get.{tenant.name}",
            outcome=outcome,
            http_status=200 if outcome == "success" else 502,
            created_at=now - timedelta(hours=hours_ago),
        )


def _credentials(tenant, now) -> None:
    rows = [
        {"is_expired": True, "expires_at": now - timedelta(days=1)},
        {"expires_at": now + timedelta(days=2)},
        {"expires_at": now + timedelta(days=30), "refresh_failed_at": now, "refresh_error": {"code": "X"}},
        {"expires_at": now + timedelta(days=30)},
    ]
    for n, fields in enumerate(rows):
        Credential.objects.create(
            tenant=tenant,
            integration_id=f"{tenant.name}-cred-{n}",
            name="c",
            auth_type="oauth2_bearer",
            **fields,
        )


def _runs(tenant, now) -> None:
    first, second = (
        SyncConfiguration.objects.create(
            tenant=tenant,
            platform="sitelib",
            name=f"{tenant.name} {name}",
            integration_id="sitelib-x",
            platform_domain="files.example.com",
        )
        for name in ("handbook", "policies")
    )
    for configuration, status, days_ago in [
        (first, "success", 3),
        (first, "success", 2),
        (first, "failed", 1),
        (second, "running", 0),
        (second, "success", 10),  # older than the panel's week
    ]:
        SyncRun.objects.create(
            configuration=configuration,
            tenant=tenant,
            job_id="job",
            kind="ingest",
            status=status,
            discovered=4,
            processed=4,
            succeeded=3 if status != "failed" else 0,
            failed=1 if status != "failed" else 4,
            error="Every document failed." if status == "failed" else "",
            queued_at=now - timedelta(days=days_ago),
        )
