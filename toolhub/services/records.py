"""Execution records: one row per execute call that got past authentication, rate limit and
tenant resolution, however it ended (DESIGN section 9, "record")."""

from __future__ import annotations

from toolhub.inputs import redacted
from toolhub.models import ExecutionRecord


def execution_record_write(*, call, outcome: str, status: int, error_code: str = "") -> ExecutionRecord:
    """Store the record of `call`, in the caller's transaction or one of its own. A call that used
    its credential at the vendor left that use for its record to count (`upstream_run`): the record
    names the credential and the database counts the use as it inserts the record (toolhub
    migration 0007)."""
    # One statement (its trigger counts the use): atomic on its own, in a transaction or not.
    used, call.credential_used = call.credential_used, None
    return ExecutionRecord.objects.create(
        tenant=call.tenant,
        request_id=call.request_id or "",
        principal=call.actor,
        principal_key=call.principal.rate_key,
        tool_key=call.tool_key[:128],
        connection_ref=call.connection.public_id if call.connection is not None else "",
        outcome=outcome,
        error_code=error_code,
        http_status=status,
        duration_ms=call.elapsed_ms(),
        upstream_ms=call.upstream_ms,
        input_redacted=redacted(call.input) if isinstance(call.input, dict) else {},
        idempotency_key=call.idempotency_key[:255],
        approval_ref=call.approval_ref,
        credential_used=used,
    )
