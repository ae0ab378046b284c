"""One JSON-RPC message in, at most one out (DESIGN section 16), in either era of the protocol
(`toolhub.mcp.wire`): which era a message belongs to is told by its `MCP-Protocol-Version` header.

Handshake era: `initialize` negotiates a version and hands out no session, so every request
stands on its own; every message after it names its version in the header (none means
2025-03-26), and one this server does not speak is refused with HTTP 400 before anything runs.

Stateless era: the SDK's inbound ladder (`mcp.shared.inbound.classify_inbound_request`) checks the
request's `_meta` envelope and that the headers repeat its version, method and name; its errors
carry the HTTP status the transport assigns them. `server/discover` says what `initialize` said.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from django.conf import settings
from mcp import types
from mcp.shared.inbound import ERROR_CODE_HTTP_STATUS, InboundLadderRejection, classify_inbound_request
from pydantic import BaseModel, ValidationError

from toolhub.mcp.resources import resource_read, resource_templates_list, resources_list
from toolhub.mcp.tools import tools_call, tools_list
from toolhub.mcp.wire import (
    HANDSHAKE_VERSIONS,
    PROTOCOL_VERSION_HEADER,
    PROTOCOL_VERSIONS,
    SERVER_NAME,
    SERVER_TITLE,
    STATELESS_VERSIONS,
    McpCaller,
    McpReply,
    McpRequest,
    ProtocolError,
    error_reply,
    request_parse,
    result_wire,
    usable_id,
    wire,
)

INSTRUCTIONS = (
    "Tools act on the organisation's IT systems with the caller's permissions; write, destructive "
    "and admin tools may wait for a person's approval. knowledge.documents.search finds passages of "
    "the knowledge base by meaning; its documents are resources (kb://documents/{document_id})."
)


def mcp_parse_error(message: str) -> McpReply:
    """The answer to a body that is not JSON (its id cannot be known)."""
    return error_reply(None, types.ErrorData(code=types.PARSE_ERROR, message=message), status=400)


def mcp_handle(*, caller: McpCaller, payload: object, headers: Mapping[str, str]) -> McpReply:
    """Answer one decoded JSON-RPC message; `headers` are the HTTP request's, names in lower case."""
    version = headers.get(PROTOCOL_VERSION_HEADER.lower())
    if version in STATELESS_VERSIONS:
        return _stateless(caller, payload, headers)
    return _handshake(caller, payload, version)


def _handshake(caller: McpCaller, payload: object, header: str | None) -> McpReply:
    try:
        message = types.jsonrpc_message_adapter.validate_python(payload)
    except ValidationError:
        return _invalid(usable_id(payload), "Not a JSON-RPC 2.0 message.")
    if isinstance(message, types.JSONRPCNotification) and "id" in payload:
        # An id that is null, an object, ... : a request gone wrong, not a notification (JSON-RPC 2.0).
        return _invalid(None, "A request's id is a string or a number.")
    request = isinstance(message, types.JSONRPCRequest)
    if request and message.method == "initialize":
        return _answer(caller, message.id, "initialize", _offered(message.params), message.params)
    version = types.DEFAULT_NEGOTIATED_VERSION if header is None else header
    if version not in HANDSHAKE_VERSIONS:
        return _unsupported(message.id if request else None, version)
    if not request:
        return McpReply(202)  # notifications and responses need no answer
    return _answer(caller, message.id, message.method, version, message.params)


def _offered(params: object) -> str:
    """The version `initialize` agrees to: the client's if this server speaks it, else the newest."""
    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    return asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]


def _stateless(caller: McpCaller, payload: object, headers: Mapping[str, str]) -> McpReply:
    if isinstance(payload, dict) and "id" not in payload:
        try:
            types.JSONRPCNotification.model_validate(payload)
        except ValidationError:
            return _invalid(None, "Not a JSON-RPC 2.0 message.")
        return McpReply(202)  # this revision defines no notifications for a client to send here
    try:
        message = types.JSONRPCRequest.model_validate(payload)
    except ValidationError:
        return _invalid(usable_id(payload), "The body must be one JSON-RPC request or notification.")
    verdict = classify_inbound_request(payload, headers=headers)
    if isinstance(verdict, InboundLadderRejection):
        error = types.ErrorData(code=verdict.code, message=verdict.message, data=verdict.data)
        return error_reply(message.id, error, status=ERROR_CODE_HTTP_STATUS.get(verdict.code, 400))
    try:
        capabilities = types.ClientCapabilities.model_validate(verdict.client_capabilities)
    except ValidationError:
        error = types.ErrorData(code=types.INVALID_PARAMS, message="The client capabilities are malformed.")
        return error_reply(message.id, error, status=400)
    return _answer(caller, message.id, message.method, verdict.protocol_version, message.params, capabilities)


def _answer(caller, request_id, method: str, version: str, params, capabilities=None) -> McpReply:
    stateless = version in STATELESS_VERSIONS
    try:
        handler = _METHODS.get(method)
        if handler is None:
            raise ProtocolError(types.METHOD_NOT_FOUND, f"Unknown method {method}.")
        request = McpRequest(method, version, request_parse(method, version, params), capabilities)
        result, replayed = handler(caller, request)
    except ProtocolError as exc:
        status = ERROR_CODE_HTTP_STATUS.get(exc.error.code, 200) if stateless else 200
        return error_reply(request_id, exc.error, status=status)
    answer = result_wire(method, version, result)
    response = types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=answer)
    return McpReply(200, wire(response), replayed=replayed)


def _invalid(request_id, message: str) -> McpReply:
    return error_reply(request_id, types.ErrorData(code=types.INVALID_REQUEST, message=message), status=400)


def _unsupported(request_id, requested: str) -> McpReply:
    """HTTP 400 with the SDK's unsupported-version error, which names the versions to use instead."""
    data = types.UnsupportedProtocolVersionErrorData(supported=list(PROTOCOL_VERSIONS), requested=requested)
    error = types.ErrorData(
        code=types.UNSUPPORTED_PROTOCOL_VERSION,
        message=f"Unsupported {PROTOCOL_VERSION_HEADER}: {requested}.",
        data=wire(data),
    )
    return error_reply(request_id, error, status=400)


def _capabilities() -> types.ServerCapabilities:
    return types.ServerCapabilities(
        tools=types.ToolsCapability(list_changed=False),
        resources=types.ResourcesCapability(subscribe=False, list_changed=False),
    )


def _server_info() -> types.Implementation:
    return types.Implementation(name=SERVER_NAME, title=SERVER_TITLE, version=settings.VERSION)


def _initialize(caller: McpCaller, request: McpRequest):
    result = types.InitializeResult(
        protocol_version=request.version,
        capabilities=_capabilities(),
        server_info=_server_info(),
        instructions=INSTRUCTIONS,
    )
    return result, False


def _discover(caller: McpCaller, request: McpRequest):
    result = types.DiscoverResult(
        supported_versions=list(PROTOCOL_VERSIONS),
        capabilities=_capabilities(),
        instructions=INSTRUCTIONS,
        meta={types.SERVER_INFO_META_KEY: wire(_server_info())},
    )
    return result, False


def _ping(caller: McpCaller, request: McpRequest):
    return types.EmptyResult(), False


_METHODS: dict[str, Callable[[McpCaller, McpRequest], tuple[BaseModel, bool]]] = {
    "initialize": _initialize,
    "ping": _ping,
    "server/discover": _discover,
    "tools/list": tools_list,
    "tools/call": tools_call,
    "resources/list": resources_list,
    "resources/templates/list": resource_templates_list,
    "resources/read": resource_read,
}
