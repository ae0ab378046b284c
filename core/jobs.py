"""The registry of named background jobs (DESIGN section 8) and the record of every run.

Names and schedules live here, the documented list (DESIGN section 8); each app registers its part
of a job with `@job_implementation(name)` in its own `jobs.py` (a job may have parts in several
apps, run in the order the apps are installed, their items added up). A job without an
implementation is listed but not available (the trigger endpoint answers 400 for it). An
implementation receives the run and returns the number of items it processed; it must be
idempotent (tasks are acknowledged late, so a worker killed mid-run means the run is delivered
again).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from celery import current_app
from celery.schedules import crontab
from django.db import connection, transaction
from django.utils import timezone

from core.api.errors import ApiError, Conflict, ServiceUnavailable
from core.audit import audit_record
from core.models import JobRun

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobSpec:
    name: str
    description: str
    cron: dict | None  # crontab(**cron) for beat; None: on demand only


JOB_SPECS: dict[str, JobSpec] = {
    spec.name: spec
    for spec in [
        JobSpec(
            "tokenExpiry", "Flag expired credentials and refresh those about to expire.", {"minute": "*/5"}
        ),
        JobSpec(
            "credentialRotationCheck", "Find credentials due for rotation.", {"minute": "0", "hour": "*/6"}
        ),
        JobSpec(
            "cleanupExpiredSessions",
            "Expire API keys past their expiry; remove expired idempotency records and approvals.",
            {"minute": "*/15"},
        ),
        JobSpec(
            "auditLogArchive",
            "Archive audit entries past the retention window.",
            {"minute": "30", "hour": "3"},
        ),
        JobSpec(
            "dataSync",
            "Queue the knowledge-source syncs that are due; resume runs whose worker stopped.",
            {"minute": "*/5"},
        ),
        JobSpec(
            "reportGeneration",
            "Write each tenant's usage report of the month so far, and close last month's.",
            {"minute": "15", "hour": "4"},
        ),
        JobSpec(
            "permissionsSync",
            "Read again who may read the indexed items of each knowledge source that is due.",
            {"minute": "*/5"},
        ),
        JobSpec("dekRotation", "Re-encrypt a tenant's secrets under its new data key.", {"minute": "*/10"}),
        JobSpec(
            "failedFilesRetention", "Delete failed-file records past retention.", {"minute": "0", "hour": "2"}
        ),
        JobSpec("usageFlush", "Move API-key usage counters from the cache onto the keys.", {"minute": "*/5"}),
        JobSpec(
            "connectionHealth",
            "Probe every active tool-hub connection and record its health (routing skips unhealthy ones).",
            {"minute": "*/5"},
        ),
    ]
}

RUN_JOB_TASK = "core.tasks.run_job"  # sent by name: the tasks module imports this one

JobFunction = Callable[[JobRun], int]
_IMPLEMENTATIONS: dict[str, list[JobFunction]] = {}


def job_implementation(name: str) -> Callable[[JobFunction], JobFunction]:
    if name not in JOB_SPECS:
        raise KeyError(f"Unknown job {name!r}: add it to JOB_SPECS first.")

    def register(function: JobFunction) -> JobFunction:
        parts = _IMPLEMENTATIONS.setdefault(name, [])
        if function not in parts:
            parts.append(function)
        return function

    return register


def job_available(name: str) -> bool:
    return name in _IMPLEMENTATIONS


def job_enqueue(*, name: str, triggered_by: dict, tenant_id=None, params: dict | None = None) -> JobRun:
    """Record a queued run and hand it to the broker, in one transaction: if the broker refuses,
    nothing is recorded and the caller gets 503."""
    with transaction.atomic():
        run = JobRun.objects.create(
            job_name=name, tenant_id=tenant_id, params=params or {}, triggered_by=triggered_by
        )
        try:
            current_app.send_task(RUN_JOB_TASK, args=[str(run.id)], retry=False)
        except Exception as exc:
            logger.warning("Broker unavailable while queueing %s: %r", name, exc)
            raise ServiceUnavailable("The job queue is unavailable; nothing was queued.") from exc
    return run


def job_execute(run: JobRun) -> JobRun:
    """Run one recorded job now (in a worker, or inline for beat's own runs)."""
    started = time.perf_counter()
    JobRun.objects.filter(id=run.id).update(
        status=JobRun.Status.STARTED, started_at=timezone.now(), attempts=run.attempts + 1
    )
    run.refresh_from_db()
    try:
        items = sum(int(part(run) or 0) for part in _IMPLEMENTATIONS[run.job_name])
    except Exception as exc:
        logger.exception("Job %s (%s) failed", run.job_name, run.id)
        _finish(run, JobRun.Status.FAILED, 0, f"{type(exc).__name__}: {exc}"[:500], started)
        raise
    _finish(run, JobRun.Status.SUCCEEDED, items, "ok", started)
    return run


def _finish(run: JobRun, status: str, items: int, outcome: str, started: float) -> None:
    JobRun.objects.filter(id=run.id).update(
        status=status,
        items=items,
        outcome=outcome,
        finished_at=timezone.now(),
        duration_ms=int((time.perf_counter() - started) * 1000),
    )
    run.refresh_from_db()


def beat_schedule() -> dict:
    return {
        f"job:{spec.name}": {
            "task": "core.tasks.run_scheduled_job",
            "schedule": crontab(**spec.cron),
            "args": (spec.name,),
        }
        for spec in JOB_SPECS.values()
        if spec.cron is not None
    }


# Runs older than this that never finished are taken as lost (a worker died), so they do not block
# new triggers for ever.
STALE_AFTER = timedelta(hours=1)


def job_trigger(*, name: str, actor: dict, tenant, request_id: str) -> JobRun:
    """POST /api/v1/admin/jobs/trigger: 400 unknown or unavailable, 409 already queued or running."""

    def refuse(code: str, message: str) -> ApiError:
        return ApiError(message, code=code, status=400, details={"jobName": message})

    if name not in JOB_SPECS:
        raise refuse("UNKNOWN_JOB", f"Unknown job {name!r}; known jobs: {', '.join(JOB_SPECS)}.")
    if not job_available(name):
        raise refuse("JOB_NOT_AVAILABLE", f"The job {name!r} is not yet available in this deployment.")
    with transaction.atomic():
        _lock_name(name)
        # A tenant's own run (its DEK rotation's) does not block the platform-wide job.
        busy = JobRun.objects.filter(
            job_name=name,
            tenant_id=None,
            status__in=[JobRun.Status.QUEUED, JobRun.Status.STARTED],
            queued_at__gt=timezone.now() - STALE_AFTER,
        )
        if busy.exists():
            raise Conflict(f"The job {name!r} is already queued or running.", code="JOB_ALREADY_RUNNING")
        run = job_enqueue(name=name, triggered_by=actor)
        audit_record(
            tenant=tenant,
            action="JOB_TRIGGERED",
            category="jobs",
            actor=actor,
            resource={"type": "job", "id": f"job-{run.id}", "name": name},
            details={"jobName": name},
            request_id=request_id,
        )
    return run


def _lock_name(name: str) -> None:
    """Serialise triggers of one job (PostgreSQL advisory lock; SQLite's write lock already does)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"job:{name}"])
