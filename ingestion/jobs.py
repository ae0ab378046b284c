"""Background jobs of the ingestion app (names and schedules live in core.jobs.JOB_SPECS)."""

from __future__ import annotations

from core.jobs import job_implementation
from core.models import JobRun
from ingestion.services.configurations import permissions_passes_due, sync_configurations_run_due
from ingestion.services.failed_files import failed_files_purge_expired
from ingestion.services.runs import sync_run_items_purge_expired, sync_runs_resume_abandoned


@job_implementation("failedFilesRetention")
def failed_files_retention(run: JobRun) -> int:
    # Idempotent: a redelivered run finds nothing more to delete. The runs' item records (their
    # per-file log) follow the same retention.
    return failed_files_purge_expired() + sync_run_items_purge_expired()


@job_implementation("dataSync")
def data_sync(run: JobRun) -> int:
    """The scheduled runs that are due, and the runs whose worker died (their lease expired) queued
    again to resume. Idempotent: a second pass finds the same runs active and queues nothing new
    (a run queued twice is taken by one attempt; the other finds it held or finished)."""
    return sync_configurations_run_due() + sync_runs_resume_abandoned()


@job_implementation("permissionsSync")
def permissions_sync(run: JobRun) -> int:
    """A permissions pass of each configuration whose readers are due to be read again (DESIGN
    section 19). Idempotent: a second pass finds the runs it queued active and queues nothing."""
    return permissions_passes_due()
