"""The official MCP client (the `mcp` package's Streamable HTTP transport and ClientSession) against
this service over real HTTP: it connects, lists the tools and calls a read tool."""

from __future__ import annotations

import anyio
import httpx2
import pytest
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from core.models import AuditEntry
from toolhub.models import ExecutionRecord

ORG_LIST = "itdocs.organization.list"


async def _session_run(url: str, headers: dict, work):
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        initialized = await session.initialize()
        return initialized, await work(session)


def run_session(url: str, headers: dict, work):
    return anyio.run(_session_run, url, headers, work)


@pytest.mark.django_db(transaction=True)
def test_the_official_client_lists_and_calls_tools(live_server, exec_key, itdocs_connection, itdocs_fake):
    async def work(session: ClientSession):
        listed = await session.list_tools()
        called = await session.call_tool(ORG_LIST, {"name": "Acme Corp"})
        try:
            await session.call_tool("no.such.tool", {})
        except MCPError as exc:
            return listed, called, exc
        return listed, called, None

    initialized, (listed, called, missing) = run_session(
        live_server.url + "/mcp", {"X-API-Key": exec_key}, work
    )
    assert initialized.protocol_version == "2025-11-25"
    assert initialized.server_info.name == "integration-platform"
    tools = {tool.name: tool for tool in listed.tools}
    assert tools[ORG_LIST].annotations.read_only_hint is True
    assert tools[ORG_LIST].input_schema["type"] == "object"
    assert called.is_error is False
    assert [org["name"] for org in called.structured_content["organizations"]] == ["Acme Corp"]
    assert isinstance(called.content[0], types.TextContent)
    assert missing.code == -32602 and "no.such.tool" in missing.message
    assert len(itdocs_fake.requests_to("^/organizations$")) == 1
    assert ExecutionRecord.objects.filter(tool_key=ORG_LIST, outcome="success").count() == 1
    assert AuditEntry.objects.get(action="TOOL_EXECUTED").details["channel"] == "mcp"
