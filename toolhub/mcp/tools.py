"""`tools/list` and `tools/call`: the REST tools, listed for the caller and run exactly as REST runs
them (`tool_execute`, channel `mcp`). A tool's failure is a result with `isError: true` and the REST
error in `structuredContent`; a name that is no tool is the protocol's -32602.

A gated call without an idempotency key gets one derived from the call, so that repeating it finds
its approval. In the stateless revision a client that can open links is asked to wait for the
approver (`InputRequiredResult` with a URL elicitation of the approval's page) and to call again
when the person has decided; any other client gets the `APPROVAL_REQUIRED` result, which says so in
words."""

from __future__ import annotations

import json

from django.core import signing
from django.urls import reverse
from mcp import types

from core.api.envelopes import error_body
from core.api.errors import ApiError
from core.api.families import Family
from toolhub.errors import ApprovalRequired
from toolhub.mcp.wire import CHANNEL, McpCaller, McpRequest, ProtocolError
from toolhub.models import RiskLevel
from toolhub.registry import Tool, tool_lookup, tools_all
from toolhub.services.execute import ExecuteCall, tool_execute


def tools_list(caller: McpCaller, request: McpRequest):
    cursor = request.message.params.cursor if request.message.params else None
    if cursor is not None:  # one page: no cursor was ever handed out
        raise ProtocolError(types.INVALID_PARAMS, "Unknown cursor.", {"cursor": cursor})
    tools = [mcp_tool(tool) for tool in tools_all() if caller.principal.may_run_tool(tool.key)]
    return types.ListToolsResult(tools=tools), False


def mcp_tool(tool: Tool) -> types.Tool:
    """A registered tool as MCP describes one: the same key and schemas as REST."""
    return types.Tool(
        name=tool.key,
        title=tool.name,
        description=tool.description,
        input_schema=tool.input_schema,
        output_schema=tool.output_schema,
        annotations=_annotations(tool),
        meta={"domain": tool.domain, "risk_level": tool.risk_level, "version": tool.version},
    )


def _annotations(tool: Tool) -> types.ToolAnnotations:
    if tool.risk_level == RiskLevel.READ:
        return types.ToolAnnotations(title=tool.name, read_only_hint=True)
    destructive = tool.risk_level in (RiskLevel.DESTRUCTIVE, RiskLevel.ADMIN)
    return types.ToolAnnotations(title=tool.name, read_only_hint=False, destructive_hint=destructive)


APPROVAL_INPUT = "approval"  # the key of the input request that waits for an approver
_STATE_SALT = "toolhub.mcp.tools.approval"


def tools_call(caller: McpCaller, request: McpRequest):
    params = request.message.params
    if tool_lookup(params.name) is None:
        raise ProtocolError(types.INVALID_PARAMS, f"Unknown tool: {params.name}", {"name": params.name})
    declined = _declined_to_wait(params)
    body = {"input": params.arguments if params.arguments is not None else {}}
    key = (params.meta or {}).get("idempotency_key")
    if key is not None:
        body["idempotency_key"] = key
    call = ExecuteCall(
        tenant=caller.tenant,
        principal=caller.principal,
        actor=caller.actor,
        request_id=caller.request_id,
        tool_key=params.name,
        body=body,
        header_key=caller.idempotency_header,
        channel=CHANNEL,
        derive_key=True,
    )
    try:
        result = tool_execute(call=call)
    except ApprovalRequired as exc:
        if request.stateless and not declined and _opens_links(request.capabilities):
            return _wait_for_approval(caller, exc), False
        return _tool_failure(error_body(exc, Family.TOOL)), False
    except ApiError as exc:
        return _tool_failure(error_body(exc, Family.TOOL)), False
    envelope = json.loads(result.body)
    if result.status >= 400:
        return _tool_failure(envelope), result.replayed
    return _tool_success(envelope, replayed=result.replayed), result.replayed


def _declined_to_wait(params: types.CallToolRequestParams) -> bool:
    """The retry of a call that was asked to wait: its state must be the one handed out (-32602
    otherwise), and a person who declined to wait gets the call's result as it stands."""
    if params.request_state is not None:
        try:
            signing.loads(params.request_state, salt=_STATE_SALT)
        except signing.BadSignature:
            raise ProtocolError(types.INVALID_PARAMS, "Invalid requestState.") from None
    answer = (params.input_responses or {}).get(APPROVAL_INPUT)
    return isinstance(answer, types.ElicitResult) and answer.action != "accept"


def _opens_links(capabilities: types.ClientCapabilities | None) -> bool:
    return (
        capabilities is not None
        and capabilities.elicitation is not None
        and (capabilities.elicitation.url is not None)
    )


def _wait_for_approval(caller: McpCaller, exc: ApprovalRequired) -> types.InputRequiredResult:
    """Ask the client to wait for a person: the approval's page in the console, for an approver to
    decide, and a retry of the same call once they have."""
    page = caller.base_url + reverse("admin:toolhub_approval_change", args=[exc.approval.pk])
    message = f"{exc.message} The approval's page, for an approver: {page}. Continue once it is decided."
    ask = types.ElicitRequest(params=types.ElicitRequestURLParams(message=message, url=page))
    return types.InputRequiredResult(
        input_requests={APPROVAL_INPUT: ask},
        request_state=signing.dumps(exc.approval.public_id, salt=_STATE_SALT),
    )


def _tool_success(envelope: dict, *, replayed: bool) -> types.CallToolResult:
    data = envelope["data"]
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(data, ensure_ascii=False))],
        structured_content=data,
        meta=_call_meta(envelope, replayed=replayed),
    )


def _tool_failure(envelope: dict) -> types.CallToolResult:
    """The REST error (`code`, `message`, `details`) as the tool's result, for the model to read."""
    error = envelope["error"]
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(error, ensure_ascii=False))],
        structured_content=error,
        is_error=True,
        meta={"request_id": envelope.get("request_id")},
    )


def _call_meta(envelope: dict, *, replayed: bool) -> dict:
    meta = {key: envelope[key] for key in ("request_id", "connection_id", "duration_ms") if key in envelope}
    return (meta | {"idempotent_replayed": True}) if replayed else meta
