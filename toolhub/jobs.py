"""The tool hub's part of the named jobs (registered from ToolhubConfig.ready)."""

from __future__ import annotations

from adminops.jobs import cleanup_expired_sessions as adminops_cleanup
from adminops.jobs import job_implementation
from adminops.models import JobRun


@job_implementation("cleanupExpiredSessions")
def cleanup_expired_sessions(run: JobRun) -> int:
    """adminops' clean-up (API keys, OAuth tokens), then the tool hub's: idempotency records past
    retention and pending approvals past their expiry."""
    from toolhub.services.cleanup import toolhub_cleanup

    return adminops_cleanup(run) + toolhub_cleanup()
