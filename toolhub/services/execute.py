"""POST /tools/{tool_key}/execute, in the order of DESIGN section 9:

authenticate -> rate limit (both in TenantAPIView) -> tool -> permission -> connection -> input
validation -> idempotency -> approval policy -> upstream call -> output check -> record.

Errors before the upstream call are raised (and rendered by core.api). The outcome of an upstream
call, success or vendor error, is rendered to bytes here so that an idempotent repeat receives
exactly the bytes the first call did.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from functools import partial
from uuid import UUID

from django.db import transaction

from core.api.envelopes import error_body
from core.api.errors import ApiError, Forbidden
from core.api.families import Family
from core.api.renderers import render_json
from core.audit import audit_record
from core.models import Tenant
from core.principals import Principal
from toolhub.connectors import upstream_lease, upstream_run
from toolhub.errors import ApprovalRequired, IdempotencyInProgress, InvalidInput, UpstreamError
from toolhub.inputs import (
    derived_idempotency_key,
    execute_request_parse,
    fingerprint,
    input_errors,
    output_errors,
    redacted,
)
from toolhub.models import Connection, ExecutionRecord, IdempotencyRecord, RiskLevel
from toolhub.registry import Tool
from toolhub.selectors import connection_resolve, connection_warnings, policy_gates, tool_get
from toolhub.services.approvals import approval_create, approval_gate, approval_mark_executed
from toolhub.services.idempotency import (
    idempotency_claim,
    idempotency_complete,
    idempotency_release,
    idempotency_start_approved,
    idempotency_upstream_start,
)
from toolhub.services.records import execution_record_write


@dataclass
class ExecuteCall:
    tenant: Tenant
    principal: Principal
    actor: dict
    request_id: str
    tool_key: str
    body: object
    header_key: str | None
    channel: str = "rest"  # how the call arrived: "rest" or "mcp" (its audit entry says which)
    # A gated call without an idempotency key gets one derived from the call (most MCP clients
    # cannot send one) instead of being refused.
    derive_key: bool = False
    started: float = field(default_factory=time.perf_counter)
    # Filled in as the call moves through the pipeline; the execution record reads them.
    connection: Connection | None = None
    input: object = None
    idempotency_key: str = ""
    approval_ref: str = ""
    upstream_ms: int | None = None
    outcome: str = ExecutionRecord.Outcome.SUCCESS
    recorded: bool = False  # the execution record is written
    # The credential `upstream_run` used at the vendor, its use left for the record to count.
    credential_used: UUID | None = None

    def elapsed_ms(self) -> int:
        return int((time.perf_counter() - self.started) * 1000)


@dataclass(frozen=True)
class ExecuteResult:
    status: int
    body: bytes
    replayed: bool = False


def tool_execute(*, call: ExecuteCall) -> ExecuteResult:
    """Run one execute call and leave an execution record of it, however it ends."""
    try:
        result = _pipeline(call)
    except ApiError as exc:
        outcome = "approval_required" if exc.status_code == 202 else ExecutionRecord.Outcome.ERROR
        execution_record_write(call=call, outcome=outcome, status=exc.status_code, error_code=exc.code)
        raise
    if not call.recorded:
        _record(call, result.status, result.body)
    return result


def _record(call: ExecuteCall, status: int, body: bytes) -> None:
    """A replay is recorded as `replayed` whatever it replays (the stored answer may be an error,
    whose code the record keeps); any other failed answer is an `error`."""
    failed = status >= 400
    replayed = call.outcome == ExecutionRecord.Outcome.REPLAYED
    execution_record_write(
        call=call,
        outcome=ExecutionRecord.Outcome.ERROR if failed and not replayed else call.outcome,
        status=status,
        error_code=_code_of(body) if failed else "",
    )
    call.recorded = True


def _pipeline(call: ExecuteCall) -> ExecuteResult:
    tool = tool_get(key=call.tool_key)
    _check_permission(call.principal, tool)
    request = execute_request_parse(call.body, header_key=call.header_key)
    call.input, call.idempotency_key = request.input, request.idempotency_key or ""
    connection = connection_resolve(
        tenant=call.tenant,
        tool=tool,
        connection_id=request.connection_id,
        pinned=call.principal.pinned_connection(tool.domain),
    )
    call.connection = connection
    errors = input_errors(tool, request.input)
    gated = policy_gates(tenant=call.tenant, tool=tool, connection=connection)
    if request.dry_run:
        return _dry_run(call, tool, errors=errors, gated=gated)
    if errors:
        raise InvalidInput(errors, message=f"The input does not match the schema of {tool.key}.")
    if not request.idempotency_key:
        if not gated:
            return _perform(call, tool, record=None)
        if not call.derive_key:
            raise InvalidInput(
                [_KEY_NEEDED], message=f"{tool.key} needs approval, so it needs an idempotency key."
            )
        call.idempotency_key = derived_idempotency_key(
            principal_key=call.principal.rate_key, tool_key=tool.key, input=request.input
        )
    digest = fingerprint(tool_key=tool.key, input=request.input, connection_id=request.connection_id)
    return _with_key(call, tool, digest, gated=gated)


_KEY_NEEDED = {
    "path": "/idempotency_key",
    "keyword": "required",
    "message": "This tool needs approval: send an idempotency_key to repeat the call once approved.",
}


def _check_permission(principal: Principal, tool: Tool) -> None:
    if principal.is_user:
        raise Forbidden("Tools are executed with an API key, OAuth token or service account.")
    if not principal.may_run_tool(tool.key):
        raise Forbidden(f"This credential may not execute {tool.key}.", details={"tool_key": tool.key})


def _dry_run(call: ExecuteCall, tool: Tool, *, errors: list[dict], gated: bool) -> ExecuteResult:
    """Everything up to the approval check; nothing executed, no key consumed, no approval made."""
    call.outcome = ExecutionRecord.Outcome.DRY_RUN
    data = {
        "dry_run": True,
        "valid": not errors,
        "tool_key": tool.key,
        "risk_level": tool.risk_level,
        "approval_required": gated,
        "connection_id": call.connection.public_id,
    }
    if errors:
        data["errors"] = errors
    return ExecuteResult(200, _success_body(call, data))


def _with_key(call: ExecuteCall, tool: Tool, digest: str, *, gated: bool) -> ExecuteResult:
    make_approval = None
    if gated:
        make_approval = partial(
            approval_create,
            tenant=call.tenant,
            tool=tool,
            connection=call.connection,
            idempotency_key=call.idempotency_key,
            fingerprint=digest,
            input_redacted=redacted(call.input),
            principal=call.principal,
            actor=call.actor,
            request_id=call.request_id,
            channel=call.channel,
        )
    claim = idempotency_claim(
        tenant=call.tenant,
        principal_key=call.principal.rate_key,
        key=call.idempotency_key,
        fingerprint=digest,
        tool_key=tool.key,
        lease=upstream_lease(call.connection, tool),
        make_approval=make_approval,
        rerunnable=tool.risk_level == RiskLevel.READ,
    )
    record = claim.record
    if claim.replay:
        return _replay(call, record)
    if claim.interrupted:
        return _outcome_unknown(call, tool, record)
    if claim.awaiting:
        approval = record.approval
        call.approval_ref = approval.public_id if approval else ""
        if claim.fresh:
            raise ApprovalRequired(approval)
        approval_gate(approval=approval)
        if not idempotency_start_approved(record=record, lease=upstream_lease(call.connection, tool)):
            return _lost_race(call, record)
    return _perform(call, tool, record=record)


def _replay(call: ExecuteCall, record: IdempotencyRecord) -> ExecuteResult:
    call.outcome = ExecutionRecord.Outcome.REPLAYED
    return ExecuteResult(record.response_status, bytes(record.response_body), replayed=True)


def _lost_race(call: ExecuteCall, record: IdempotencyRecord) -> ExecuteResult:
    """Another repeat of the same approved call started it first."""
    record.refresh_from_db()
    if record.status == IdempotencyRecord.Status.COMPLETED:
        return _replay(call, record)
    raise IdempotencyInProgress(retry_after=1)


OUTCOME_UNKNOWN_MESSAGE = (
    "the first attempt was interrupted after the request reached the vendor; "
    "check the vendor before retrying with a new key"
)


def _outcome_unknown(call: ExecuteCall, tool: Tool, record: IdempotencyRecord) -> ExecuteResult:
    """The call that held the key died after its request reached the vendor, and the tool changes
    things there: calling again could do it twice, so the key ends with a final error, stored and
    replayed like any answer."""
    exc = UpstreamError(OUTCOME_UNKNOWN_MESSAGE, status=None, vendor_code="OUTCOME_UNKNOWN")
    body = _error_bytes(exc)
    _finish(call, tool, record, exc.status_code, body)
    return ExecuteResult(exc.status_code, body)


def _mark_upstream(record: IdempotencyRecord | None):
    if record is None:
        return None

    def mark() -> None:
        if not idempotency_upstream_start(record=record):
            # Our lease ran out and a repeat took the key over: it decides, we must not call.
            raise IdempotencyInProgress(retry_after=1)

    return mark


def _perform(call: ExecuteCall, tool: Tool, *, record: IdempotencyRecord | None) -> ExecuteResult:
    upstream_started = time.perf_counter()
    try:
        output = upstream_run(call=call, tool=tool, on_start=_mark_upstream(record))
        problems = output_errors(tool, output)
        if problems:
            raise UpstreamError(
                "The vendor's answer does not match the tool's output schema.", status=None, vendor_code=None
            )
    except UpstreamError as exc:
        status, body = exc.status_code, _error_bytes(exc)
    except ApiError:
        # Nothing reached the vendor, or it refused to serve us now (rate limit): the key is free again.
        if record is not None:
            idempotency_release(record=record)
        raise
    else:
        status, body = 200, _success_body(call, output)
    finally:
        call.upstream_ms = int((time.perf_counter() - upstream_started) * 1000)
    _finish(call, tool, record, status, body)
    return ExecuteResult(status, body)


def _finish(call: ExecuteCall, tool: Tool, record, status: int, body: bytes) -> None:
    """Everything the call leaves behind, committed together once the vendor has answered: the
    idempotency record's answer, the approval's execution, the execution record with its
    credential's counted access, and the audit entry last."""
    entry = {
        "tenant": call.tenant,
        "action": "TOOL_EXECUTED",
        "category": "tools",
        "actor": call.actor,
        "resource": {"type": "tool", "id": tool.key, "name": tool.name},
        "details": {
            "connectionId": call.connection.public_id,
            "riskLevel": tool.risk_level,
            "httpStatus": status,
            "approvalId": call.approval_ref or None,
            "idempotent": record is not None,
            "channel": call.channel,
        },
        "status": "success" if status < 400 else "failure",
        "request_id": call.request_id,
    }
    with transaction.atomic():
        if record is not None:
            idempotency_complete(record=record, status=status, body=body)
            if record.approval_id is not None:
                approval_mark_executed(approval_id=record.approval_id)
        _record(call, status, body)
        audit_record(**entry)


def _success_body(call: ExecuteCall, data) -> bytes:
    body = {
        "success": True,
        "data": data,
        "connection_id": call.connection.public_id,
        "duration_ms": call.elapsed_ms(),
        "request_id": call.request_id,
    }
    warnings = connection_warnings(call.connection)
    if warnings:
        body["warnings"] = warnings
    return render_json(body)


def _error_bytes(exc: ApiError) -> bytes:
    return render_json(error_body(exc, Family.TOOL))


def _code_of(body: bytes) -> str:
    try:
        return str(json.loads(body)["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return ""
