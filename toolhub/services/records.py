"""Execution records: one row per execute call that got past authentication, rate limit and
tenant resolution, however it ended (DESIGN section 9, "record")."""

from __future__ import annotations

from django.db import transaction

from toolhub.inputs import redacted
from toolhub.models import ExecutionRecord
from vault.services.common import credential_count, credential_count_with, credential_lock


def execution_record_write(*, call, outcome: str, status: int, error_code: str = "") -> ExecutionRecord:
    """Store the record of `call`, and count the access of its credential if the call left that to
    its record (`upstream_run`), in the caller's transaction or one of its own."""
    record = execution_record_new(call=call, outcome=outcome, status=status, error_code=error_code)
    access = _take_access(call)
    with transaction.atomic(savepoint=False):
        record.save(force_insert=True)
        if access is not None:
            credential_count(*access)
    return record


def execution_record_access(call) -> dict:
    """The call's credential access, when left to its record, as what `audit_record_with` needs to
    count it along with the record's audited write: the change (`also`) and its row (`lock`)."""
    access = _take_access(call)
    if access is None:
        return {}
    lock = credential_lock(call.tenant.id, call.connection.integration_id)
    return {"also": credential_count_with(*access), "lock": lock}


def _take_access(call):
    access, call.uncounted_access = call.uncounted_access, None
    return access


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
