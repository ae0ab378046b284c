"""Background jobs of the ingestion app (names and schedules live in adminops.jobs.JOB_SPECS)."""

from __future__ import annotations

from adminops.jobs import job_implementation
from adminops.models import JobRun
from ingestion.services import failed_files_purge_expired


@job_implementation("failedFilesRetention")
def failed_files_retention(run: JobRun) -> int:
    # Idempotent: a redelivered run finds nothing more to delete.
    return failed_files_purge_expired()
