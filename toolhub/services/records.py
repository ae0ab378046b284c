"""Execution records: one row per execute call that got past authentication, rate limit and
tenant resolution, however it ended (DESIGN section 9, "record")."""

from __future__ import annotations

from toolhub.inputs import redacted
from toolhub.models import ExecutionRecord


def execution_record_write(*, call, outcome: str, status: int, error_code: str = "") -> ExecutionRecord:
    record = execution_record_new(call=call, outcome=outcome, status=status, error_code=error_code)
    record.save(force_insert=True)
    return record


def execution_record_new(*, call, outcome: str, status: int, error_code: str = "") -> ExecutionRecord:
    """The record of `call`, not yet stored."""
    return ExecutionRecord(
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
    )
