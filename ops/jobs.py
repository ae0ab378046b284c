"""The platform's own jobs (core.jobs): the audit trail's archive and the monthly usage reports."""

from __future__ import annotations

from core.jobs import job_implementation
from core.models import JobRun
from ops.archive import audit_archive
from ops.reports import usage_reports_generate


@job_implementation("auditLogArchive")
def audit_log_archive(run: JobRun) -> int:
    """Idempotent: a second run finds nothing older than the retention left in the table."""
    return audit_archive(run_id=run.id)


@job_implementation("reportGeneration")
def report_generation(run: JobRun) -> int:
    """Idempotent: a second run replaces the same reports (one per tenant and month)."""
    return usage_reports_generate(run_id=run.id)
