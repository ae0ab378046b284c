"""The MCP Inspector's CLI (npm `@modelcontextprotocol/inspector`) against this service over real
HTTP: it lists the tools and calls a read tool. Opt-in: runs only when MCP_INSPECTOR names the
installed `mcp-inspector` executable, as .ci/run sets it in its services run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from core.models import AuditEntry
from toolhub.models import ExecutionRecord

INSPECTOR = os.environ.get("MCP_INSPECTOR", "")
ORG_LIST = "itdocs.organization.list"

pytestmark = [
    pytest.mark.skipif(
        not (INSPECTOR and shutil.which(INSPECTOR) and shutil.which("node")),
        reason="set MCP_INSPECTOR to the mcp-inspector executable (.ci/run installs it)",
    ),
    pytest.mark.django_db(transaction=True),
]


def inspector(url: str, key: str, home, *args: str) -> dict:
    """One CLI run: connect, send one method, print its result as JSON."""
    return inspector_run(url, key, home, *args)[0]


def inspector_run(url: str, key: str, home, *args: str) -> tuple[dict, str]:
    """(the result, what the CLI wrote on stderr)."""
    command = [INSPECTOR, "--cli", url, "--transport", "http", "--header", f"X-API-Key: {key}"]
    env = os.environ | {
        "HOME": str(home),  # its catalog and client config, never the real home's
        "MCP_CATALOG_PATH": str(home / "mcp.json"),
        "MCP_CLIENT_CONFIG_PATH": str(home / "client.json"),
    }
    result = subprocess.run(
        [*command, *args, "--format", "json", "--quiet"], env=env, capture_output=True, text=True, timeout=90
    )
    assert result.returncode == 0, (result.returncode, result.stdout[-2000:], result.stderr[-2000:])
    return json.loads(result.stdout)["result"], result.stderr


def test_the_inspector_lists_the_tools(live_server, exec_key, tmp_path):
    listed = inspector(live_server.url + "/mcp", exec_key, tmp_path, "--method", "tools/list")
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert tools[ORG_LIST]["annotations"]["readOnlyHint"] is True
    assert tools[ORG_LIST]["inputSchema"]["type"] == "object"


def test_every_tool_schema_passes_the_inspectors_strict_check(live_server, exec_key, tmp_path):
    listed, complaints = inspector_run(
        live_server.url + "/mcp", exec_key, tmp_path, "--method", "tools/list", "--strict"
    )
    assert len(listed["tools"]) >= 20
    assert "Warning" not in complaints and "Error" not in complaints, complaints[:3000]


def test_the_inspector_calls_a_read_tool(live_server, exec_key, itdocs_connection, itdocs_fake, tmp_path):
    called = inspector(
        live_server.url + "/mcp",
        exec_key,
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        ORG_LIST,
        "--tool-arg",
        "name=Acme Corp",
    )
    assert called["isError"] is False
    assert [org["name"] for org in called["structuredContent"]["organizations"]] == ["Acme Corp"]
    assert len(itdocs_fake.requests_to("^/organizations$")) == 1
    assert ExecutionRecord.objects.filter(tool_key=ORG_LIST, outcome="success").count() == 1
    assert AuditEntry.objects.get(action="TOOL_EXECUTED").details["channel"] == "mcp"
