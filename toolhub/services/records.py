"""Execution records: one row per execute call that got past authentication, rate limit and
tenant resolution, however it ended (DESIGN section 9, "record")."""

from __future__ import annotations

from django.db import transaction

from toolhub.inputs import redacted
from toolhub.models import ExecutionRecord
from vault.services.common import credential_access_count


def execution_record_write(*, call, outcome: str, status: int, error_code: str = "") -> ExecutionRecord:
    """Store the record of `call`, and count the access of its credential if the call left that to
    its record (`upstream_run`), in the caller's transaction or one of its own."""
    access, call.uncounted_access = call.uncounted_access, None
    with transaction.atomic(savepoint=False):
        record = ExecutionRecord.objects.create(
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
        if access is not None:
            credential_access_count(*access)
    return record
