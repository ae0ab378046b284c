"""Numbers computed live from real rows: tenant statistics and job statistics.

Storage (`usage.storageUsedMB`) is the sum of what each app measures for the tenant (the
`@storage_measure` functions of core.reports; the audit trail's is here, docs/administration.md).
"""

from __future__ import annotations

from datetime import timedelta

from celery.schedules import crontab
from django.conf import settings
from django.db.models import Avg, Count, Q, Sum
from django.utils import timezone

from core.api.timestamps import iso_ms
from core.jobs import JOB_SPECS, job_available
from core.models import AuditEntry, JobRun, Role, Tenant
from core.reports import STORAGE_MEASURES, storage_measure, text_length
from core.usage import month_label, tenant_calls
from identity.models import ApiKey, Membership
from ops.models import AuditArchive
from vault.selectors import credential_counts


def tenant_stats(*, tenant: Tenant) -> dict:
    now = timezone.now()
    members = Membership.objects.filter(tenant=tenant).select_related("user")
    users = [(m.user, m.roles) for m in members]
    keys = ApiKey.objects.filter(tenant=tenant)
    active_keys = keys.filter(status=ApiKey.Status.ACTIVE).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now)
    )
    clients = tenant.oauth_clients.registered().exclude(status="deleted")
    last_month = now.replace(day=1) - timedelta(days=1)
    last_entry = AuditEntry.objects.filter(tenant_id=tenant.id).order_by("-timestamp").first()
    return {
        "tenantId": str(tenant.id),
        "tenantName": tenant.name,
        "users": {
            "total": len(users),
            "active": sum(1 for u, _ in users if u.is_active),
            "inactive": sum(1 for u, _ in users if not u.is_active),
            "admins": sum(1 for _, roles in users if Role.TENANT_ADMIN in roles),
        },
        "credentials": credential_counts(tenant=tenant),
        "apiKeys": {
            "total": keys.count(),
            "active": active_keys.count(),
            "revoked": keys.filter(status=ApiKey.Status.REVOKED).count(),
        },
        "oauthClients": {"total": clients.count(), "active": clients.filter(status="active").count()},
        "serviceAccounts": {"total": tenant.service_accounts.count()},
        "usage": {
            "apiCallsThisMonth": tenant_calls(tenant.id, month_label(now)),
            "apiCallsLastMonth": tenant_calls(tenant.id, month_label(last_month)),
            "storageUsedMB": round(tenant_storage_bytes(tenant) / MB, 2),
            "storageQuotaMB": storage_quota_mb(tenant),
        },
        "lastActivity": iso_ms(last_entry.timestamp) if last_entry else None,
        "generatedAt": iso_ms(now),
    }


MB = 1024 * 1024


def tenant_storage_bytes(tenant: Tenant) -> int:
    return sum(measure(tenant) for measure in STORAGE_MEASURES.values())


def storage_quota_mb(tenant: Tenant) -> int:
    """The tenant's `subscription.storageQuotaMB` (set by operators in the console: the tenant's
    admins may change `settings` themselves), else TENANT_STORAGE_QUOTA_MB."""
    quota = (tenant.subscription or {}).get("storageQuotaMB")
    if isinstance(quota, int) and not isinstance(quota, bool) and quota > 0:
        return quota
    return settings.TENANT_STORAGE_QUOTA_MB


@storage_measure("auditEntries")
def _audit_storage(tenant: Tenant) -> int:
    live = text_length(
        AuditEntry.objects.filter(tenant_id=tenant.id),
        "action", "category", "actor", "resource", "details", "request_id", "prev_hash", "hash",
    )  # fmt: skip
    archived = AuditArchive.objects.filter(tenant_id=tenant.id).aggregate(n=Sum("size_bytes"))["n"]
    return live + (archived or 0)


_API_STATUS = {"queued": "queued", "started": "processing", "succeeded": "completed", "failed": "failed"}


def job_stats(*, name: str) -> dict:
    spec = JOB_SPECS[name]
    now = timezone.now()
    runs = JobRun.objects.filter(job_name=name)
    counts = dict(runs.values_list("status").annotate(n=Count("id")).values_list("status", "n"))
    finished = runs.filter(status__in=[JobRun.Status.SUCCEEDED, JobRun.Status.FAILED])
    done = counts.get("succeeded", 0) + counts.get("failed", 0)
    average = finished.aggregate(avg=Avg("duration_ms"))["avg"]
    last = finished.order_by("-finished_at").first()
    recent = runs.order_by("-queued_at")[:10]
    return {
        "jobName": name,
        "description": spec.description,
        "available": job_available(name),
        "status": "running" if counts.get("started") else ("queued" if counts.get("queued") else "idle"),
        "queue": {
            "pending": counts.get("queued", 0),
            "processing": counts.get("started", 0),
            "failed": counts.get("failed", 0),
            "completed": counts.get("succeeded", 0),
        },
        "performance": {
            "averageExecutionTime": _duration(average),
            "lastExecutionTime": _duration(last.duration_ms if last else None),
            "successRate": f"{100 * counts.get('succeeded', 0) / done:.1f}%" if done else None,
        },
        "schedule": _schedule(spec.cron, now, runs),
        "recentExecutions": [
            {
                "id": f"job-{run.id}",
                "status": _API_STATUS[run.status],
                "queuedAt": iso_ms(run.queued_at),
                "startedAt": iso_ms(run.started_at),
                "completedAt": iso_ms(run.finished_at),
                "itemsProcessed": run.items,
                "durationMs": run.duration_ms,
            }
            for run in recent
        ],
        "generatedAt": iso_ms(now),
    }


def _duration(ms) -> str | None:
    if ms is None:
        return None
    return f"{round(ms)}ms" if ms < 1000 else f"{ms / 1000:.1f}s"


def _schedule(cron: dict | None, now, runs) -> dict:
    last = runs.order_by("-queued_at").first()
    if cron is None:
        return {"cron": None, "nextRun": None, "lastRun": iso_ms(last.queued_at) if last else None}
    fields = [cron.get(k, "*") for k in ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")]
    schedule = crontab(**cron)
    next_run = now + schedule.remaining_estimate(now)
    return {
        "cron": " ".join(fields),
        "nextRun": iso_ms(next_run),
        "lastRun": iso_ms(last.queued_at) if last else None,
    }
