"""The Model Context Protocol over the tool hub (DESIGN section 16): one JSON-RPC message in, at most
one out, every message read and written through the official SDK's types (`mcp.types`).

Stateless: `initialize` negotiates a version and hands out no session, so every request stands on
its own; every message after it names its version in the `MCP-Protocol-Version` header (none means
2025-03-26), and one this server does not speak is refused with HTTP 400. `tools/list` lists the
tools the caller may execute and `tools/call` runs exactly the REST execute (`tool_execute`,
channel `mcp`). A tool's failure is a result with `isError: true` and the
REST error in `structuredContent`; a message the protocol cannot serve is a JSON-RPC error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from mcp import types
from pydantic import BaseModel, ValidationError

from core.api.envelopes import error_body
from core.api.errors import ApiError
from core.api.families import Family
from core.models import Tenant
from core.principals import Principal
from toolhub.models import RiskLevel
from toolhub.registry import Tool, tools_all
from toolhub.services.execute import ExecuteCall, tool_execute

# Negotiated by `initialize`, oldest first; a version we do not speak gets the newest.
PROTOCOL_VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version"
SERVER_NAME = "integration-platform"
CHANNEL = "mcp"


@dataclass(frozen=True)
class McpCaller:
    """Who sends the messages, as the tenant view resolved them."""

    tenant: Tenant
    principal: Principal
    actor: dict
    request_id: str
    idempotency_header: str | None


@dataclass(frozen=True)
class McpReply:
    """The HTTP answer to one message: 202 with no body for anything that is not a request."""

    status: int
    body: dict | None = None
    replayed: bool = False


class _ProtocolError(Exception):
    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(message)
        self.error = types.ErrorData(code=code, message=message, data=data)


def mcp_parse_error(message: str) -> McpReply:
    """The answer to a body that is not JSON (its id cannot be known)."""
    return _error_reply(None, types.ErrorData(code=types.PARSE_ERROR, message=message), status=400)


def mcp_handle(*, caller: McpCaller, payload: object, protocol_version: str | None = None) -> McpReply:
    """Answer one decoded JSON-RPC message; `protocol_version` is the `MCP-Protocol-Version` header."""
    try:
        message = types.jsonrpc_message_adapter.validate_python(payload)
    except ValidationError:
        error = types.ErrorData(code=types.INVALID_REQUEST, message="Not a JSON-RPC 2.0 message.")
        return _error_reply(_id_of(payload), error, status=400)
    refusal = _version_refusal(message, protocol_version)
    if refusal is not None:
        return refusal
    if not isinstance(message, types.JSONRPCRequest):
        return McpReply(202)  # notifications and responses need no answer
    handler = _METHODS.get(message.method)
    if handler is None:
        error = types.ErrorData(code=types.METHOD_NOT_FOUND, message=f"Unknown method {message.method}.")
        return _error_reply(message.id, error)
    try:
        result, replayed = handler(caller, message.params or {})
    except _ProtocolError as exc:
        return _error_reply(message.id, exc.error)
    response = types.JSONRPCResponse(jsonrpc="2.0", id=message.id, result=_wire(result))
    return McpReply(200, _wire(response), replayed=replayed)


def _version_refusal(message: types.JSONRPCMessage, header: str | None) -> McpReply | None:
    """A message after `initialize` in a protocol version this server does not speak: HTTP 400 with
    the SDK's unsupported-version error, which names the versions to use instead."""
    if isinstance(message, types.JSONRPCRequest) and message.method == "initialize":
        return None
    requested = types.DEFAULT_NEGOTIATED_VERSION if header is None else header
    if requested in PROTOCOL_VERSIONS:
        return None
    data = types.UnsupportedProtocolVersionErrorData(supported=list(PROTOCOL_VERSIONS), requested=requested)
    error = types.ErrorData(
        code=types.UNSUPPORTED_PROTOCOL_VERSION,
        message=f"Unsupported {PROTOCOL_VERSION_HEADER}: {requested}.",
        data=_wire(data),
    )
    request_id = message.id if isinstance(message, types.JSONRPCRequest) else None
    return _error_reply(request_id, error, status=400)


def _params(model: type[BaseModel], params: dict):
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        problems = [{"loc": list(e["loc"]), "msg": e["msg"]} for e in exc.errors(include_url=False)]
        raise _ProtocolError(types.INVALID_PARAMS, "Invalid params.", {"errors": problems}) from None


def _initialize(caller: McpCaller, params: dict):
    asked = _params(types.InitializeRequestParams, params).protocol_version
    result = types.InitializeResult(
        protocol_version=asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1],
        capabilities=types.ServerCapabilities(tools=types.ToolsCapability(list_changed=False)),
        server_info=types.Implementation(name=SERVER_NAME, title="Tool hub", version=settings.VERSION),
    )
    return result, False


def _ping(caller: McpCaller, params: dict):
    return types.EmptyResult(), False


def _tools_list(caller: McpCaller, params: dict):
    _params(types.PaginatedRequestParams, params)  # one page: the cursor has nothing to skip
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


def _tools_call(caller: McpCaller, params: dict):
    request = _params(types.CallToolRequestParams, params)
    body = {"input": request.arguments if request.arguments is not None else {}}
    key = (request.meta or {}).get("idempotency_key")
    if key is not None:
        body["idempotency_key"] = key
    call = ExecuteCall(
        tenant=caller.tenant,
        principal=caller.principal,
        actor=caller.actor,
        request_id=caller.request_id,
        tool_key=request.name,
        body=body,
        header_key=caller.idempotency_header,
        channel=CHANNEL,
    )
    try:
        result = tool_execute(call=call)
    except ApiError as exc:
        return _tool_failure(error_body(exc, Family.TOOL)), False
    envelope = json.loads(result.body)
    if result.status >= 400:
        return _tool_failure(envelope), result.replayed
    return _tool_success(envelope, replayed=result.replayed), result.replayed


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


_METHODS: dict[str, Callable[[McpCaller, dict], tuple[BaseModel, bool]]] = {
    "initialize": _initialize,
    "ping": _ping,
    "tools/list": _tools_list,
    "tools/call": _tools_call,
}


def _wire(model: BaseModel) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _error_reply(request_id, error: types.ErrorData, *, status: int = 200) -> McpReply:
    message = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
    return McpReply(status, _wire(message) | {"id": request_id})


def _id_of(payload: object):
    """The id of a message that is not valid, when it has a usable one (else null)."""
    if isinstance(payload, dict):
        value = payload.get("id")
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return value
    return None
