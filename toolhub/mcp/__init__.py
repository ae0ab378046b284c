"""The Model Context Protocol over the tool hub (DESIGN section 16): `server` answers one message,
`tools` and `resources` serve what the caller may use, `wire` holds what they share. The HTTP side
is `toolhub/apis/mcp.py`."""

from toolhub.mcp.server import mcp_handle, mcp_parse_error
from toolhub.mcp.wire import PROTOCOL_VERSION_HEADER, McpCaller, McpReply

__all__ = ["PROTOCOL_VERSION_HEADER", "McpCaller", "McpReply", "mcp_handle", "mcp_parse_error"]
