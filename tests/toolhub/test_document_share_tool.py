"""The document sharing tool (`documents.item.share`, risk `admin`) against a fake document-site
API, through the real client and POST /api/v1/tools/{key}/execute: it waits for an approver, then
sends one sharing invitation and answers the permissions granted."""

from __future__ import annotations

import pytest

from tests.fakes.graph_writes import FakeGraphWrites
from tests.fakes.server import Reply
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok, make_connection, make_credential

TOOL = "documents.item.share"


@pytest.fixture
def graph(loopback, tenant):
    with FakeGraphWrites(tokens={"graph-token"}) as fake:
        site = fake.add_site("/sites/it", "IT")
        fake.drive = fake.add_drive(site, "Documents")
        fake.folder = fake.add_folder(fake.drive, "Runbooks")
        make_credential(tenant, "docs-prod-001", auth_type="oauth2_bearer", access_token="graph-token")
        make_connection(
            tenant, fake.api_url, integration_id="docs-prod-001", domain="documents", connector="sitelib"
        )
        yield fake


@pytest.fixture
def share(client_for, tenant, approver, executor, graph):
    """Execute the tool with `input` under `key`, approving its call first when it is gated."""

    def run(key="share-1", **input):
        body = {"input": {"drive_id": graph.drive.id, "item_id": graph.folder["id"], **input}}
        response = executor.post(EXEC_URL.format(TOOL), body | {"idempotency_key": key}, format="json")
        if response.status_code != 202:
            return response
        approval_id = response.json()["error"]["details"]["approval_id"]
        decided = client_for(approver, tenant).post(
            f"/api/v1/approvals/{approval_id}/approve", {"reason": "access request"}, format="json"
        )
        assert_tool_ok(decided)
        return executor.post(EXEC_URL.format(TOOL), body | {"idempotency_key": key}, format="json")

    return run


def _invites(graph):
    return [r for r in graph.received if r.method == "POST"]


def test_it_grants_write_access_and_answers_the_permissions(share, graph):
    data = assert_tool_ok(
        share(recipients=["robin@example.com", "kim@example.com"], role="write", message="For Saturday.")
    )["data"]
    granted = graph.permissions[graph.folder["id"]]
    assert data == {
        "drive_id": graph.drive.id,
        "item_id": graph.folder["id"],
        "permissions": [
            {"id": granted[0]["id"], "roles": ["write"], "granted_to_email": "robin@example.com"},
            {"id": granted[1]["id"], "roles": ["write"], "granted_to_email": "kim@example.com"},
        ],
        "count": 2,
    }
    [sent] = _invites(graph)
    assert sent.path == f"/v1.0/drives/{graph.drive.id}/items/{graph.folder['id']}/invite"
    assert sent.json() == {
        "recipients": [{"email": "robin@example.com"}, {"email": "kim@example.com"}],
        "roles": ["write"],
        "requireSignIn": True,
        "sendInvitation": True,
        "message": "For Saturday.",
    }
    assert sent.headers["Authorization"] == "Bearer graph-token"


def test_by_default_it_grants_read_access_and_can_stay_silent(share, graph):
    assert_tool_ok(share(recipients=["auditor@example.com"], send_invitation=False))
    [sent] = _invites(graph)
    assert sent.json() == {
        "recipients": [{"email": "auditor@example.com"}],
        "roles": ["read"],
        "requireSignIn": True,
        "sendInvitation": False,
    }


def test_the_call_waits_for_an_approver_and_sends_nothing_before(executor, graph):
    body = {
        "input": {"drive_id": graph.drive.id, "item_id": graph.folder["id"], "recipients": ["a@example.com"]},
        "idempotency_key": "share-gated",
    }
    gate = assert_tool_error(
        executor.post(EXEC_URL.format(TOOL), body, format="json"), 202, "APPROVAL_REQUIRED"
    )
    assert gate["details"]["approval_id"]
    without_key = executor.post(EXEC_URL.format(TOOL), {"input": body["input"]}, format="json")
    assert assert_tool_error(without_key, 422, "INVALID_INPUT")["details"]["errors"][0]["path"] == (
        "/idempotency_key"
    )
    assert _invites(graph) == []


def test_an_approved_share_runs_once_and_replays(share, executor, graph):
    assert_tool_ok(share(recipients=["robin@example.com"]))
    replay = share(recipients=["robin@example.com"])
    assert replay["Idempotent-Replayed"] == "true"
    assert len(_invites(graph)) == 1 and len(graph.permissions[graph.folder["id"]]) == 1


@pytest.mark.parametrize(
    ("input", "path", "keyword"),
    [
        ({"recipients": []}, "/input/recipients", "minItems"),
        ({"recipients": ["not-an-address"]}, "/input/recipients/0", "format"),
        ({"recipients": ["a@example.com", "a@example.com"]}, "/input/recipients", "uniqueItems"),
        ({"recipients": [f"p{i}@example.com" for i in range(26)]}, "/input/recipients", "maxItems"),
        ({"recipients": ["a@example.com"], "role": "owner"}, "/input/role", "enum"),
        ({"recipients": ["a@example.com"], "message": "x" * 2001}, "/input/message", "maxLength"),
        ({"recipients": ["a@example.com"], "expires": "2027-01-01"}, "/input", "additionalProperties"),
        ({}, "/input/recipients", "required"),
    ],
)
def test_bad_input_is_422_and_never_reaches_the_platform(executor, graph, input, path, keyword):
    body = {
        "input": {"drive_id": graph.drive.id, "item_id": graph.folder["id"], **input},
        "idempotency_key": "k",
    }
    error = assert_tool_error(executor.post(EXEC_URL.format(TOOL), body, format="json"), 422, "INVALID_INPUT")
    assert {"path": path, "keyword": keyword} in [
        {"path": e["path"], "keyword": e["keyword"]} for e in error["details"]["errors"]
    ]
    assert graph.received == []


def test_a_missing_item_is_an_upstream_404(share, graph):
    error = assert_tool_error(share(item_id="NOPE", recipients=["a@example.com"]), 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 404 and error["details"]["vendor_code"] == "itemNotFound"


def test_a_refusal_of_the_platform_is_an_upstream_error_without_its_body(share, graph):
    graph.queue_reply(
        Reply(403, {"error": {"code": "accessDenied", "message": "The caller may not share this item."}}),
        path="/invite$",
    )
    error = assert_tool_error(share(recipients=["a@example.com"]), 502, "UPSTREAM_ERROR")
    assert error["details"] | {"message": ""} == {"status": 403, "vendor_code": "accessDenied", "message": ""}
    assert graph.permissions == {}


def test_the_tool_is_admin_and_documents_its_input(client_for, tenant, exec_key):
    tool = assert_tool_ok(client_for(exec_key, tenant).get(f"/api/v1/tools/{TOOL}"))["data"]
    assert tool["risk_level"] == "admin"
    assert tool["input_schema"]["additionalProperties"] is False and tool["input_schema"]["examples"]
    assert tool["output_schema"]["additionalProperties"] is False
