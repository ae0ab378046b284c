"""POST /mcp (DESIGN section 16): the HTTP errors of the transport, the JSON-RPC errors of the
protocol, and tools/list and tools/call answering what REST answers for the same key."""

from __future__ import annotations

import json

import pytest

from core.audit import system_actor
from core.models import AuditEntry, Role
from tests import factories
from tests.factories import make_searchable_document
from tests.helpers import assert_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok
from toolhub.models import Approval, ApprovalPolicy, ExecutionRecord
from toolhub.services.connections import connection_create

MCP = "/mcp"
ACCEPT = "application/json, text/event-stream"
SEARCH = "knowledge.documents.search"
VPN = "To reset your VPN password, open the self-service portal and choose reset."


@pytest.fixture
def knowledge_connection(tenant):
    make_searchable_document(tenant, [VPN], title="VPN guide")
    return connection_create(
        tenant=tenant,
        actor=system_actor("tests"),
        name="Knowledge",
        domain="knowledge",
        connector="knowledge",
    )


@pytest.fixture
def agent(client_for, exec_key):
    """An MCP client: the executing key, no x-tenantid (the key's own tenant)."""
    return client_for(exec_key, HTTP_ACCEPT=ACCEPT)


def post(client, payload, **headers):
    body = payload if isinstance(payload, str | bytes) else json.dumps(payload)
    return client.generic("POST", MCP, body, content_type="application/json", **headers)


def rpc(client, method: str, params: dict | None = None, *, id=1, **headers):
    message = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        message["params"] = params
    return post(client, message, **headers)


def result_of(response) -> dict:
    assert response.status_code == 200, (response.status_code, response.content[:500])
    body = response.json()
    assert body["jsonrpc"] == "2.0" and "error" not in body, body
    return body["result"]


def rpc_error(response, status: int, code: int, id=1) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:500])
    body = response.json()
    assert body["id"] == id and body["error"]["code"] == code, body
    return body["error"]


def call_tool(client, name: str, arguments: dict, *, key: str | None = None, **headers) -> dict:
    params = {"name": name, "arguments": arguments}
    if key is not None:
        params["_meta"] = {"idempotency_key": key}
    return result_of(rpc(client, "tools/call", params, **headers))


HANDSHAKE = ["2025-03-26", "2025-06-18", "2025-11-25"]
STATELESS = "2026-07-28"
CAPABILITIES = {"tools": {"listChanged": False}, "resources": {"subscribe": False, "listChanged": False}}
INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"},
}


# ---- the transport's HTTP errors


def test_it_refuses_a_client_that_does_not_accept_json(client_for, exec_key):
    client = client_for(exec_key, HTTP_ACCEPT="text/event-stream")
    assert rpc(client, "ping").status_code == 406


def test_it_accepts_any_media_type(client_for, exec_key):
    assert result_of(rpc(client_for(exec_key, HTTP_ACCEPT="*/*"), "ping")) == {}


def test_it_asks_a_caller_without_credentials_to_authenticate(client_for):
    response = rpc(client_for(None, HTTP_ACCEPT=ACCEPT), "ping")
    assert_error(response, 401, "UNAUTHORIZED")
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_it_rejects_a_wrong_api_key_with_a_challenge(db, client_for):
    response = rpc(client_for(None, HTTP_ACCEPT=ACCEPT, HTTP_X_API_KEY="ak_live_nope"), "ping")
    assert response.status_code == 401 and response["WWW-Authenticate"].startswith("Bearer")


def test_it_takes_the_key_in_x_api_key(client_for, exec_key):
    assert result_of(rpc(client_for(None, HTTP_ACCEPT=ACCEPT, HTTP_X_API_KEY=exec_key), "ping")) == {}


def test_it_takes_an_oauth_access_token(client_for, tenant):
    from tests.security.test_role_matrix import _oauth_token

    token = _oauth_token(tenant, ["tools:execute"])
    assert result_of(rpc(client_for(token, HTTP_ACCEPT=ACCEPT), "ping")) == {}


def test_users_do_not_speak_mcp(client_for, tenant, owner):
    response = rpc(client_for(owner, tenant, HTTP_ACCEPT=ACCEPT), "ping")
    assert_error(response, 403, "FORBIDDEN")


def test_it_refuses_an_origin_that_is_not_allowed(agent):
    response = rpc(agent, "ping", HTTP_ORIGIN="https://evil.example")
    assert_error(response, 403, "ORIGIN_NOT_ALLOWED")


def test_it_allows_its_own_host_and_listed_origins(agent, settings):
    assert result_of(rpc(agent, "ping", HTTP_ORIGIN="http://testserver")) == {}
    settings.MCP_ALLOWED_ORIGINS = ["https://inspector.example"]
    assert result_of(rpc(agent, "ping", HTTP_ORIGIN="https://inspector.example")) == {}


def test_it_refuses_a_body_that_is_not_json_by_its_content_type(agent):
    response = agent.generic("POST", MCP, '{"jsonrpc": "2.0"}', content_type="text/plain")
    assert response.status_code == 415


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_there_is_no_stream_and_no_session_to_delete(agent, method):
    response = agent.generic(method, MCP)
    assert response.status_code == 405
    assert "POST" in response["Allow"]


def test_a_client_asking_for_the_stream_is_told_there_is_none(client_for, exec_key):
    response = client_for(exec_key, HTTP_ACCEPT="text/event-stream").generic("GET", MCP)
    assert response.status_code == 405
    assert "POST" in response["Allow"]


def test_the_tenant_header_must_name_the_keys_tenant(client_for, exec_key, tenant, other_tenant):
    assert result_of(rpc(client_for(exec_key, tenant, HTTP_ACCEPT=ACCEPT), "ping")) == {}
    assert rpc(client_for(exec_key, other_tenant, HTTP_ACCEPT=ACCEPT), "ping").status_code == 403


def test_answers_carry_the_rate_limit_headers(agent):
    response = rpc(agent, "ping")
    assert {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} <= set(response.headers)


# ---- JSON-RPC errors


def test_a_body_that_is_not_json_is_a_parse_error(agent):
    rpc_error(post(agent, '{"jsonrpc": "2.0", '), 400, -32700, id=None)


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "1.0", "id": 7, "method": "ping"},
        {"jsonrpc": "2.0", "id": 7, "method": "ping", "params": [1]},
    ],
)
def test_a_message_that_is_not_json_rpc_is_an_invalid_request(agent, message):
    rpc_error(post(agent, message), 400, -32600, id=7)


def test_a_batch_is_an_invalid_request(agent):
    rpc_error(post(agent, [{"jsonrpc": "2.0", "id": 1, "method": "ping"}]), 400, -32600, id=None)


@pytest.mark.parametrize("request_id", [None, {"n": 1}, [1], True, 1.5])
def test_a_request_whose_id_is_not_a_string_or_number_is_invalid_not_a_notification(agent, request_id):
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}
    rpc_error(post(agent, message), 400, -32600, id=None)


def test_an_unknown_method_is_not_found(agent):
    rpc_error(rpc(agent, "prompts/list", id="r1"), 200, -32601, id="r1")
    rpc_error(rpc(agent, "resources/subscribe", {"uri": "kb://documents/x"}, id="r2"), 200, -32601, id="r2")


def test_an_unknown_cursor_is_invalid_params(agent):
    error = rpc_error(rpc(agent, "tools/list", {"cursor": "page-2"}), 200, -32602)
    assert error["data"] == {"cursor": "page-2"}


def test_an_unknown_tool_is_invalid_params_and_runs_nothing(agent):
    error = rpc_error(rpc(agent, "tools/call", {"name": "no.such.tool", "arguments": {}}), 200, -32602)
    assert error["message"] == "Unknown tool: no.such.tool" and error["data"] == {"name": "no.such.tool"}
    assert not ExecutionRecord.objects.exists()


@pytest.mark.parametrize(
    ("method", "params"),
    [("tools/call", {"arguments": {}}), ("tools/call", {"name": 5}), ("initialize", {"capabilities": {}})],
)
def test_params_of_the_wrong_shape_are_invalid_params(agent, method, params):
    rpc_error(rpc(agent, method, params), 200, -32602)


# ---- lifecycle


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_initialize_agrees_to_a_version_it_speaks(agent, version):
    result = result_of(rpc(agent, "initialize", INITIALIZE | {"protocolVersion": version}))
    assert result["protocolVersion"] == version
    assert result["capabilities"] == CAPABILITIES
    assert result["serverInfo"]["name"] == "integration-platform"
    assert "kb://documents/{document_id}" in result["instructions"]


@pytest.mark.parametrize("version", ["2024-11-05", "2099-01-01"])
def test_initialize_offers_the_latest_version_for_any_other(agent, version):
    result = result_of(rpc(agent, "initialize", INITIALIZE | {"protocolVersion": version}))
    assert result["protocolVersion"] == "2025-11-25"


def test_it_hands_out_no_session(agent):
    assert "Mcp-Session-Id" not in rpc(agent, "initialize", INITIALIZE)


@pytest.mark.parametrize("version", ["2025-03-26", "2025-06-18", "2025-11-25"])
def test_a_request_in_a_version_it_speaks_is_answered(agent, version):
    assert result_of(rpc(agent, "ping", HTTP_MCP_PROTOCOL_VERSION=version)) == {}


def test_a_request_without_a_version_is_taken_as_2025_03_26(agent):
    assert result_of(rpc(agent, "tools/list"))["tools"]


@pytest.mark.parametrize("version", ["2024-11-05", "2099-01-01", "not-a-version", ""])
def test_a_request_in_a_version_it_does_not_speak_is_refused(agent, version):
    response = rpc(agent, "tools/list", id="v1", HTTP_MCP_PROTOCOL_VERSION=version)
    error = rpc_error(response, 400, -32022, id="v1")
    assert error["data"] == {"supported": [*HANDSHAKE, STATELESS], "requested": version}


def test_a_notification_in_a_version_it_does_not_speak_is_refused(agent):
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    rpc_error(post(agent, notification, HTTP_MCP_PROTOCOL_VERSION="2099-01-01"), 400, -32022, id=None)


def test_a_call_in_a_version_it_does_not_speak_runs_nothing(agent, knowledge_connection):
    params = {"name": SEARCH, "arguments": {"query": "VPN"}}
    rpc_error(rpc(agent, "tools/call", params, HTTP_MCP_PROTOCOL_VERSION="2099-01-01"), 400, -32022)
    assert not ExecutionRecord.objects.exists()


def test_initialize_ignores_the_version_header(agent):
    response = rpc(agent, "initialize", INITIALIZE, HTTP_MCP_PROTOCOL_VERSION="2099-01-01")
    assert result_of(response)["protocolVersion"] == "2025-06-18"


def test_notifications_and_responses_are_accepted_without_a_body(agent):
    for message in (
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "id": 3, "result": {}},
    ):
        response = post(agent, message)
        assert response.status_code == 202 and response.content == b""


# ---- tools/list


def test_tools_list_is_the_rest_list_with_the_rest_schemas(agent, executor):
    rest = executor
    listed = assert_tool_ok(rest.get("/api/v1/tools"))["data"]["tools"]
    tools = result_of(rpc(agent, "tools/list"))["tools"]
    assert [t["name"] for t in tools] == [t["tool_key"] for t in listed]
    for tool in tools:
        definition = assert_tool_ok(rest.get(f"/api/v1/tools/{tool['name']}"))["data"]
        assert tool["inputSchema"] == definition["input_schema"]
        assert tool["outputSchema"] == definition["output_schema"]
        assert tool["title"] == definition["name"] and tool["description"] == definition["description"]


def test_annotations_follow_the_risk_level(agent):
    tools = {t["name"]: t for t in result_of(rpc(agent, "tools/list"))["tools"]}
    assert tools["itsm.incident.get"]["annotations"]["readOnlyHint"] is True
    assert tools["itsm.incident.create"]["annotations"] | {"title": ""} == {
        "title": "", "readOnlyHint": False, "destructiveHint": False}  # fmt: skip
    assert tools["itsm.incident.delete"]["annotations"]["destructiveHint"] is True
    assert tools["itsm.incident.delete"]["_meta"]["risk_level"] == "destructive"


def test_tools_list_shows_a_narrow_key_only_what_it_may_call(client_for, tenant):
    _key, raw = factories.make_api_key(tenant, ["tools:execute"], tool_patterns=["itsm.incident.*"])
    tools = result_of(rpc(client_for(raw, HTTP_ACCEPT=ACCEPT), "tools/list"))["tools"]
    assert {t["name"] for t in tools} == {
        f"itsm.incident.{verb}" for verb in ("get", "list", "create", "update", "delete")
    }
    _key, reader = factories.make_api_key(tenant, ["tools:read"], name="reader")
    assert result_of(rpc(client_for(reader, HTTP_ACCEPT=ACCEPT), "tools/list"))["tools"] == []


# ---- tools/call


def test_a_call_answers_the_rest_data_and_leaves_the_same_records(agent, executor, knowledge_connection):
    arguments = {"query": "reset the VPN password", "top_k": 1}
    rest = assert_tool_ok(executor.post(EXEC_URL.format(SEARCH), {"input": arguments}, format="json"))
    result = call_tool(agent, SEARCH, arguments)
    assert result["isError"] is False
    assert result["structuredContent"] == rest["data"]
    assert json.loads(result["content"][0]["text"]) == rest["data"]
    assert result["_meta"]["connection_id"] == rest["connection_id"] == knowledge_connection.public_id
    first, second = ExecutionRecord.objects.order_by("created_at")
    same = ("tool_key", "connection_ref", "outcome", "http_status", "input_redacted", "principal_key")
    assert [getattr(second, f) for f in same] == [getattr(first, f) for f in same]
    assert second.request_id == result["_meta"]["request_id"]
    by_rest, by_mcp = AuditEntry.objects.filter(action="TOOL_EXECUTED").order_by("timestamp")
    assert by_rest.details.pop("channel") == "rest" and by_mcp.details.pop("channel") == "mcp"
    assert by_mcp.details == by_rest.details and by_mcp.resource == by_rest.resource


def test_a_repeat_with_the_same_key_replays_the_first_answer(agent, knowledge_connection):
    arguments = {"query": "VPN"}
    first = call_tool(agent, SEARCH, arguments, key="k-1")
    again = rpc(
        agent, "tools/call", {"name": SEARCH, "arguments": arguments, "_meta": {"idempotency_key": "k-1"}}
    )
    assert again["Idempotent-Replayed"] == "true"
    replay = result_of(again)
    assert replay["structuredContent"] == first["structuredContent"]
    assert replay["_meta"]["request_id"] == first["_meta"]["request_id"]
    assert replay["_meta"]["idempotent_replayed"] is True
    by_header = call_tool(agent, SEARCH, arguments, HTTP_IDEMPOTENCY_KEY="k-1")
    assert by_header["_meta"]["request_id"] == first["_meta"]["request_id"]
    assert list(ExecutionRecord.objects.values_list("outcome", flat=True).order_by("created_at")) == [
        "success", "replayed", "replayed"]  # fmt: skip


def test_the_same_key_for_another_call_is_a_tool_error(agent, knowledge_connection):
    call_tool(agent, SEARCH, {"query": "VPN"}, key="k-2")
    result = call_tool(agent, SEARCH, {"query": "printer"}, key="k-2")
    assert result["isError"] is True and result["structuredContent"]["code"] == "IDEMPOTENCY_KEY_REUSED"


def test_a_gated_call_waits_for_approval_as_in_rest(agent, tenant, knowledge_connection):
    ApprovalPolicy.objects.create(tenant=tenant, gated_risk_levels=[], always_gate=["knowledge.*"])
    result = call_tool(agent, SEARCH, {"query": "VPN"}, key="gated-1")
    assert result["isError"] is True
    error = result["structuredContent"]
    assert error["code"] == "APPROVAL_REQUIRED"
    approval = Approval.objects.get()
    assert error["details"]["approval_id"] == approval.public_id and approval.status == "pending"
    assert approval.idempotency_key == "gated-1"


@pytest.mark.parametrize(
    ("name", "arguments", "code"),
    [
        (SEARCH, {"query": 5}, "INVALID_INPUT"),
        ("itdocs.organization.list", {}, "CONNECTION_NOT_FOUND"),
    ],
)
def test_a_tool_error_is_a_result_with_the_rest_code(agent, knowledge_connection, name, arguments, code):
    result = call_tool(agent, name, arguments)
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == code
    assert json.loads(result["content"][0]["text"])["code"] == code


def test_a_key_may_call_only_its_tools(client_for, tenant, knowledge_connection):
    _key, raw = factories.make_api_key(tenant, ["tools:execute"], tool_patterns=["itsm.*"])
    result = call_tool(client_for(raw, HTTP_ACCEPT=ACCEPT), SEARCH, {"query": "VPN"})
    assert result["isError"] is True and result["structuredContent"]["code"] == "FORBIDDEN"


def test_a_call_runs_in_the_keys_tenant_only(client_for, other_tenant, knowledge_connection):
    _key, theirs = factories.make_api_key(other_tenant, ["tools:execute"], name="theirs")
    result = call_tool(client_for(theirs, HTTP_ACCEPT=ACCEPT), SEARCH, {"query": "VPN"})
    assert result["structuredContent"]["code"] == "CONNECTION_NOT_FOUND"


def test_an_approver_is_not_an_mcp_client(client_for, tenant):
    user = factories.make_user(tenant, [Role.APPROVER], username="appr", email="a@acme.test")
    assert rpc(client_for(user, tenant, HTTP_ACCEPT=ACCEPT), "tools/list").status_code == 403


# ---- the stateless revision (2026-07-28): no handshake, every request carries its envelope


def envelope(**extra) -> dict:
    return {
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    } | extra


def stateless(client, method: str, params: dict | None = None, *, name: str | None = None, **headers):
    params = {"_meta": envelope()} | (params or {})
    routing = {"HTTP_MCP_PROTOCOL_VERSION": STATELESS, "HTTP_MCP_METHOD": method}
    if name is not None:
        routing["HTTP_MCP_NAME"] = name
    return rpc(client, method, params, **(routing | headers))


def test_discover_names_every_version_and_what_the_server_offers(agent):
    result = result_of(stateless(agent, "server/discover"))
    assert result["supportedVersions"] == [*HANDSHAKE, STATELESS]
    assert result["capabilities"] == CAPABILITIES
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "integration-platform"
    assert result["resultType"] == "complete" and result["cacheScope"] == "private" and result["ttlMs"] == 0


def test_a_stateless_request_lists_and_calls_tools(agent, knowledge_connection):
    listed = result_of(stateless(agent, "tools/list"))
    assert SEARCH in {tool["name"] for tool in listed["tools"]} and listed["resultType"] == "complete"
    arguments = {"name": SEARCH, "arguments": {"query": "VPN", "top_k": 1}}
    called = result_of(stateless(agent, "tools/call", arguments, name=SEARCH))
    assert called["isError"] is False and called["resultType"] == "complete"
    assert called["structuredContent"]["results"][0]["title"] == "VPN guide"
    assert AuditEntry.objects.get(action="TOOL_EXECUTED").details["channel"] == "mcp"


def test_the_handshake_and_ping_are_gone_in_the_stateless_revision(agent):
    rpc_error(stateless(agent, "initialize", INITIALIZE), 404, -32601)
    rpc_error(stateless(agent, "ping"), 404, -32601)


@pytest.mark.parametrize(
    "meta",
    [
        None,
        {"io.modelcontextprotocol/clientCapabilities": {}},
        {"io.modelcontextprotocol/protocolVersion": STATELESS},
    ],
)
def test_a_stateless_request_without_its_envelope_is_invalid_params(agent, meta):
    params = {} if meta is None else {"_meta": meta}
    headers = {"HTTP_MCP_PROTOCOL_VERSION": STATELESS, "HTTP_MCP_METHOD": "tools/list"}
    rpc_error(rpc(agent, "tools/list", params, **headers), 400, -32602)


def test_a_request_that_contradicts_its_headers_is_refused(agent, knowledge_connection):
    rpc_error(stateless(agent, "tools/list", HTTP_MCP_METHOD="tools/call"), 400, -32020)
    arguments = {"name": SEARCH, "arguments": {"query": "VPN"}}
    rpc_error(stateless(agent, "tools/call", arguments, name="itsm.incident.get"), 400, -32020)
    assert not ExecutionRecord.objects.exists()


def test_stateless_protocol_errors_carry_the_transports_statuses(agent):
    rpc_error(stateless(agent, "prompts/list"), 404, -32601)
    rpc_error(stateless(agent, "tools/list", {"cursor": "page-2"}), 400, -32602)
    missing = {"name": "no.such.tool", "arguments": {}}
    rpc_error(stateless(agent, "tools/call", missing, name="no.such.tool"), 400, -32602)


def test_a_stateless_notification_is_accepted_without_a_body(agent):
    notification = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}
    response = post(agent, notification, HTTP_MCP_PROTOCOL_VERSION=STATELESS)
    assert response.status_code == 202 and response.content == b""
