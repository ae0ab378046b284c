"""The tool hub's part of the named jobs (registered from ToolhubConfig.ready)."""

from __future__ import annotations

import logging

from core.audit import system_actor
from core.jobs import job_implementation
from core.models import JobRun
from toolhub.errors import ConnectionNotFound
from toolhub.models import Connection
from toolhub.services.cleanup import toolhub_cleanup
from toolhub.services.connections import connection_health_record, connection_test

logger = logging.getLogger(__name__)


@job_implementation("cleanupExpiredSessions")
def cleanup_expired_sessions(run: JobRun) -> int:
    """The tool hub's part (after identity's API keys and OAuth tokens): idempotency records past
    retention and pending approvals past their expiry."""
    return toolhub_cleanup()


@job_implementation("connectionHealth")
def connection_health(run: JobRun) -> int:
    """Probe every active connection with its connector's probe (the connection test's own code)
    and record its health; items = connections probed. Idempotent: a second run probes again."""
    actor = system_actor("connectionHealth")
    probed = 0
    active = Connection.objects.filter(status=Connection.Status.ACTIVE).select_related("tenant")
    for connection in active.order_by("tenant_id", "name").iterator():
        try:
            connection_test(
                tenant=connection.tenant, connection=connection, actor=actor, request_id=f"job-{run.id}"
            )
        except ConnectionNotFound:  # deleted while the job ran
            continue
        except Exception:  # one broken connection must not stop the others' checks
            logger.exception("Health check of connection %s failed", connection.public_id)
            connection_health_record(connection=connection, error="The check failed unexpectedly.")
        probed += 1
    return probed
