"""What every MCP message shares: the protocol versions this server speaks, who is calling, the
answer's shape, and the reading and writing of messages through the official SDK's types
(`mcp.types`, `mcp_types.methods`), each in the schema of the version it was sent in.

Two eras of the protocol are served side by side. The handshake revisions (2025-03-26 to
2025-11-25) negotiate a version with `initialize` and name it in the `MCP-Protocol-Version` header
afterwards. The stateless revisions (2026-07-28, the newest the pinned `mcp` package speaks) have
no handshake: every request carries its version, the client's capabilities and its name in
`params._meta`, and the headers repeat the version, the method and the name it acts on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp import types
from mcp.types.version import (
    HANDSHAKE_PROTOCOL_VERSIONS,
    LATEST_PROTOCOL_VERSION,
    MODERN_PROTOCOL_VERSIONS,
    is_version_at_least,
)
from mcp_types import methods
from pydantic import BaseModel, ValidationError

from core.models import Tenant
from core.principals import Principal

OLDEST_SERVED = "2025-03-26"
# Negotiated by `initialize`, oldest first; a version we do not speak gets the newest of them.
HANDSHAKE_VERSIONS = tuple(v for v in HANDSHAKE_PROTOCOL_VERSIONS if is_version_at_least(v, OLDEST_SERVED))
STATELESS_VERSIONS = tuple(MODERN_PROTOCOL_VERSIONS)
PROTOCOL_VERSIONS = (*HANDSHAKE_VERSIONS, *STATELESS_VERSIONS)
LATEST_VERSION = LATEST_PROTOCOL_VERSION
PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version"
SERVER_NAME = "integration-platform"
SERVER_TITLE = "Tool hub"
CHANNEL = "mcp"


@dataclass(frozen=True)
class McpCaller:
    """Who sends the messages, as the tenant view resolved them."""

    tenant: Tenant
    principal: Principal
    actor: dict
    request_id: str
    idempotency_header: str | None
    base_url: str = ""  # this service's address as the caller reached it, for links it is sent


@dataclass(frozen=True)
class McpRequest:
    """One request, read in the schema of its version. `capabilities` are the client's: from
    `initialize` they are not kept (stateless), so on the handshake revisions they are unknown."""

    method: str
    version: str
    message: Any  # the SDK's request model (mcp.types), its `params` typed
    capabilities: types.ClientCapabilities | None = None

    @property
    def stateless(self) -> bool:
        return self.version in STATELESS_VERSIONS


@dataclass(frozen=True)
class McpReply:
    """The HTTP answer to one message: 202 with no body for anything that is not a request."""

    status: int
    body: dict | None = None
    replayed: bool = False


class ProtocolError(Exception):
    """A JSON-RPC error answered instead of a result."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(message)
        self.error = types.ErrorData(code=code, message=message, data=data)


def request_parse(method: str, version: str, params: Mapping[str, Any] | None):
    """The request in the SDK's model, validated against `version`'s schema: -32601 for a method
    that version does not have, -32602 for params of the wrong shape."""
    try:
        return methods.parse_client_request(method, version, params)
    except KeyError:
        raise ProtocolError(types.METHOD_NOT_FOUND, f"Unknown method {method}.") from None
    except ValidationError as exc:
        problems = [{"loc": list(e["loc"]), "msg": e["msg"]} for e in exc.errors(include_url=False)]
        raise ProtocolError(types.INVALID_PARAMS, "Invalid params.", {"errors": problems}) from None


def result_wire(method: str, version: str, result: BaseModel) -> dict:
    """A result as `version` spells it: fields that version does not know are left out."""
    return methods.serialize_server_result(method, version, wire(result))


def wire(model: BaseModel) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def error_reply(request_id, error: types.ErrorData, *, status: int = 200) -> McpReply:
    message = types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
    return McpReply(status, wire(message) | {"id": request_id})


def usable_id(payload: object):
    """The id of a message that is not valid, when it has a usable one (else null)."""
    if isinstance(payload, dict):
        value = payload.get("id")
        if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
            return value
    return None
