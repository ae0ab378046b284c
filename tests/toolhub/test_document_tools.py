"""The document tools against a fake document-site API, through the real client."""

from __future__ import annotations

import pytest

from tests.fakes.graph_tools import FakeGraphTools
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok, make_connection, make_credential


@pytest.fixture
def graph(loopback, tenant):
    with FakeGraphTools(tokens={"graph-token"}) as fake:
        site = fake.add_site("/sites/it", "IT")
        fake.drive = fake.add_drive(site, "Documents")
        make_credential(tenant, "docs-prod-001", auth_type="oauth2_bearer", access_token="graph-token")
        make_connection(
            tenant, fake.api_url, integration_id="docs-prod-001", domain="documents", connector="sitelib"
        )
        yield fake


def _run(client, tool, **body):
    return client.post(EXEC_URL.format(tool), body, format="json")


def test_it_searches_a_drive(executor, graph):
    graph.add_document(graph.drive, "VPN guide.pdf", size=2048)
    graph.add_document(graph.drive, "Budget.xlsx")
    data = assert_tool_ok(
        _run(executor, "documents.file.search", input={"drive_id": graph.drive.id, "query": "vpn"})
    )["data"]
    assert data["count"] == 1
    assert data["files"][0] | {"id": ""} == {
        "id": "",
        "name": "VPN guide.pdf",
        "web_url": f"{graph.drive.web_url}/VPN%20guide.pdf",
        "size": 2048,
        "mime_type": "application/pdf",
        "is_folder": False,
        "last_modified": "2026-11-20T10:00:00.000Z",
        "path": "/drive/root:",
    }
    assert graph.received[-1].headers["Authorization"] == "Bearer graph-token"


def test_a_quote_in_the_query_stays_in_the_term(executor, graph):
    graph.add_document(graph.drive, "Bob's notes.txt")
    data = assert_tool_ok(
        _run(executor, "documents.file.search", input={"drive_id": graph.drive.id, "query": "bob's"})
    )["data"]
    assert [f["name"] for f in data["files"]] == ["Bob's notes.txt"]


def test_it_gets_file_metadata_and_maps_a_missing_item(executor, graph):
    item = graph.add_document(graph.drive, "Runbook.docx")
    data = assert_tool_ok(
        _run(executor, "documents.file.get", input={"drive_id": graph.drive.id, "item_id": item["id"]})
    )["data"]
    assert data["name"] == "Runbook.docx"
    error = assert_tool_error(
        _run(executor, "documents.file.get", input={"drive_id": graph.drive.id, "item_id": "NOPE"}),
        502,
        "UPSTREAM_ERROR",
    )
    assert error["details"] | {"message": ""} == {"status": 404, "vendor_code": "itemNotFound", "message": ""}


def test_an_expired_token_is_an_upstream_401(executor, graph):
    graph.tokens.clear()
    error = assert_tool_error(
        _run(executor, "documents.file.search", input={"drive_id": "b!x", "query": "a"}),
        502,
        "UPSTREAM_ERROR",
    )
    assert (
        error["details"]["status"] == 401 and error["details"]["vendor_code"] == "InvalidAuthenticationToken"
    )
