"""The knowledge tool and its connector: the tenant's own knowledge base, no vendor, no credential."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from core.audit import system_actor
from core.models import Role
from tests import factories
from tests.factories import make_searchable_document
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok
from toolhub.models import Connection
from toolhub.services.connections import connection_create

TOOL = "knowledge.documents.search"
CONNECTIONS = "/api/v1/connections"
VPN = "To reset your VPN password, open the self-service portal and choose reset."


@pytest.fixture
def knowledge_connection(tenant):
    return connection_create(
        tenant=tenant,
        actor=system_actor("tests"),
        name="Knowledge",
        domain="knowledge",
        connector="knowledge",
    )


@pytest.fixture
def admin_client(client_for, tenant):
    user = factories.make_user(tenant, [Role.INTEGRATION_ADMIN], username="conn-admin", email="c@acme.test")
    return client_for(user, tenant)


def run(client, **tool_input):
    return client.post(EXEC_URL.format(TOOL), {"input": tool_input}, format="json")


def test_it_searches_the_tenants_knowledge_base(executor, tenant, knowledge_connection):
    wanted = make_searchable_document(tenant, [VPN], title="VPN guide", platform_type="wikispace",
                                      content_type="wikispace_article")  # fmt: skip
    make_searchable_document(tenant, ["Laptops are replaced every three years."], title="Handbook")
    body = assert_tool_ok(run(executor, query="reset the VPN password", top_k=1))
    assert body["connection_id"] == knowledge_connection.public_id
    assert body["data"]["model"] == "hash-256"
    assert body["data"]["mode"] == "hybrid"
    (result,) = body["data"]["results"]
    assert result | {"score": 0} == {
        "document_id": f"doc-{wanted.id}",
        "title": "VPN guide",
        "source_url": wanted.source_url,
        "platform_type": "wikispace",
        "content_type": "wikispace_article",
        "chunk": VPN,
        "score": 0,
    }
    assert 0 < result["score"] <= 1


def test_it_never_returns_another_tenants_chunks(executor, tenant, other_tenant, knowledge_connection):
    theirs = make_searchable_document(other_tenant, [VPN])
    connection_create(
        tenant=other_tenant, actor=system_actor("tests"), name="K", domain="knowledge", connector="knowledge"
    )
    results = assert_tool_ok(run(executor, query="reset the VPN password", top_k=50))["data"]["results"]
    assert f"doc-{theirs.id}" not in {r["document_id"] for r in results}


def test_platform_types_and_audience_narrow_the_search(executor, tenant, knowledge_connection):
    make_searchable_document(tenant, ["payroll for finance"], title="Finance", audience=["finance"])
    make_searchable_document(tenant, ["payroll for eng"], title="Eng", audience=["eng"])
    make_searchable_document(tenant, ["payroll wiki"], title="Wiki", platform_type="wikispace",
                             content_type="wikispace_article")  # fmt: skip
    narrowed = assert_tool_ok(run(executor, query="payroll", platform_types=["sitelib"], audience=["eng"]))
    assert [r["title"] for r in narrowed["data"]["results"]] == ["Eng"]


def ticket(tenant, number: str):
    return make_searchable_document(
        tenant, [f"Ticket {number}: the VPN client fails to connect after the update."], title=number
    )


@pytest.mark.parametrize("mode", ["hybrid", "keyword"])
def test_a_ticket_number_comes_first_among_similar_tickets(executor, tenant, knowledge_connection, mode):
    for number in ("INC0012346", "INC0012354", "INC0021345", "INC0012335", "INC0013245"):
        ticket(tenant, number)
    wanted = ticket(tenant, "INC0012345")
    data = assert_tool_ok(run(executor, query="INC0012345 VPN client fails", top_k=3, mode=mode))["data"]
    assert data["mode"] == mode
    assert data["results"][0]["document_id"] == f"doc-{wanted.id}"


def test_the_mode_is_an_argument_over_mcp_too(client_for, exec_key, tenant, knowledge_connection):
    ticket(tenant, "INC0012346")
    wanted = ticket(tenant, "INC0012345")
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": TOOL, "arguments": {"query": "INC0012345", "mode": "keyword"}},
    }
    agent = client_for(exec_key, HTTP_ACCEPT="application/json, text/event-stream")
    response = agent.generic("POST", "/mcp", json.dumps(message), content_type="application/json")
    result = response.json()["result"]
    assert result["isError"] is False and result["structuredContent"]["mode"] == "keyword"
    assert [r["document_id"] for r in result["structuredContent"]["results"]] == [f"doc-{wanted.id}"]
    message["params"]["arguments"]["mode"] = "fuzzy"
    refused = agent.generic("POST", "/mcp", json.dumps(message), content_type="application/json").json()
    assert refused["result"]["isError"] is True
    assert refused["result"]["structuredContent"]["code"] == "INVALID_INPUT"


@pytest.mark.parametrize(
    "tool_input",
    [
        {},
        {"query": ""},
        {"query": "x", "top_k": 0},
        {"query": "x", "platform_types": ["web"]},
        {"q": "x"},
        {"query": "x", "mode": "fuzzy"},
        {"query": "x", "mode": 1},
        {"query": "x", "mode": None},
    ],
)
def test_bad_input_is_invalid_input(executor, knowledge_connection, tool_input):
    assert_tool_error(run(executor, **tool_input), 422, "INVALID_INPUT")


def test_without_a_knowledge_connection_it_is_connection_not_found(executor, tenant):
    assert_tool_error(run(executor, query="vpn"), 404, "CONNECTION_NOT_FOUND")


def test_a_query_that_cannot_be_embedded_is_an_upstream_error(
    executor, knowledge_connection, settings, tmp_path
):
    settings.EMBEDDING_BACKEND = "local"
    settings.EMBEDDING_MODEL_DIR = str(tmp_path)  # no weights there
    error = assert_tool_error(run(executor, query="vpn"), 502, "UPSTREAM_ERROR")
    assert error["message"].startswith("The query could not be embedded:")


def test_a_knowledge_connection_is_created_without_url_or_credential(admin_client):
    response = admin_client.post(
        CONNECTIONS, {"name": "Knowledge", "domain": "knowledge", "connector": "knowledge"}, format="json"
    )
    data = assert_tool_ok(response)["data"]
    assert (data["domain"], data["connector"], data["base_url"], data["integrationId"]) == (
        "knowledge",
        "knowledge",
        "",
        "",
    )
    assert data["is_default"] is True


@pytest.mark.parametrize(
    ("extra", "field"),
    [({"base_url": "https://example.com"}, "base_url"), ({"integrationId": "x"}, "integrationId")],
)
def test_a_knowledge_connection_takes_no_url_or_credential(admin_client, extra, field):
    body = {"name": "Knowledge", "domain": "knowledge", "connector": "knowledge", **extra}
    error = assert_tool_error(admin_client.post(CONNECTIONS, body, format="json"), 422, "VALIDATION_ERROR")
    assert field in error["details"]
    assert not Connection.objects.exists()


def test_a_knowledge_connection_keeps_no_url_on_update(admin_client, knowledge_connection):
    url = f"{CONNECTIONS}/{knowledge_connection.public_id}"
    error = assert_tool_error(
        admin_client.patch(url, {"base_url": "https://example.com"}, format="json"), 422, "VALIDATION_ERROR"
    )
    assert "base_url" in error["details"]


def test_the_connection_test_runs_a_search(admin_client, knowledge_connection):
    url = f"{CONNECTIONS}/{knowledge_connection.public_id}/test"
    data = assert_tool_ok(admin_client.post(url, format="json"))["data"]
    assert data["healthy"] is True and data["error"] is None


def test_the_connection_test_reports_an_embedding_failure(
    admin_client, knowledge_connection, settings, tmp_path
):
    settings.EMBEDDING_BACKEND = "local"
    settings.EMBEDDING_MODEL_DIR = str(tmp_path)
    url = f"{CONNECTIONS}/{knowledge_connection.public_id}/test"
    data = assert_tool_ok(admin_client.post(url, format="json"))["data"]
    assert data["healthy"] is False and data["error"]["code"] == "UPSTREAM_ERROR"


def test_createconnection_makes_a_knowledge_connection(tenant):
    out = StringIO()
    call_command(
        "createconnection", "--tenant", str(tenant.id), "--name", "KB", "--domain", "knowledge",
        "--connector", "knowledge", stdout=out,
    )  # fmt: skip
    connection = Connection.objects.get(tenant=tenant)
    assert out.getvalue().strip().splitlines()[-1] == connection.public_id
    assert (connection.domain, connection.base_url, connection.integration_id) == ("knowledge", "", "")
