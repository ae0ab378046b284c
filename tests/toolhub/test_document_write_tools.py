"""The document write tools (upload a small file, create a folder, delete an item) against a fake
document-site API, through the real client and POST /api/v1/tools/{key}/execute."""

from __future__ import annotations

import base64

import pytest

from tests.fakes.graph_writes import FakeGraphWrites
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok, make_connection, make_credential
from toolhub.models import Approval

CONFLICT = "@microsoft.graph.conflictBehavior"


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


def _run(client, tool, **body):
    return client.post(EXEC_URL.format(tool), body, format="json")


def _upload(client, graph, **input):
    return _run(client, "documents.file.upload", input={"drive_id": graph.drive.id, **input})


def _writes(graph):
    return [r for r in graph.received if r.method != "GET"]


def test_it_uploads_text_into_a_folder(executor, graph):
    data = assert_tool_ok(
        _upload(
            executor, graph, parent_id=graph.folder["id"], name="VPN notes.txt", text="Restart the gateway."
        )
    )["data"]
    assert data | {"id": ""} == {
        "id": "",
        "name": "VPN notes.txt",
        "web_url": f"{graph.drive.web_url}/Runbooks/VPN%20notes.txt",
        "size": 20,
        "mime_type": "text/plain",
        "is_folder": False,
        "last_modified": "2026-11-20T10:00:00.000Z",
        "path": f"/drives/{graph.drive.id}/root:/Runbooks",
    }
    [sent] = _writes(graph)
    assert sent.method == "PUT"
    assert sent.path == f"/v1.0/drives/{graph.drive.id}/items/{graph.folder['id']}:/VPN%20notes.txt:/content"
    assert sent.query == {CONFLICT: ["fail"]}
    assert sent.body == b"Restart the gateway."
    assert sent.headers["Content-Type"] == "text/plain; charset=utf-8"
    assert sent.headers["Authorization"] == "Bearer graph-token"


def test_it_uploads_base64_bytes_to_the_root_with_their_type(executor, graph):
    png = b"\x89PNG\r\n\x1a\n\x00\x01"
    data = assert_tool_ok(
        _upload(
            executor,
            graph,
            name="logo.png",
            content_base64=base64.b64encode(png).decode(),
            content_type="image/png",
        )
    )["data"]
    assert (data["name"], data["size"], data["mime_type"]) == ("logo.png", 10, "image/png")
    [sent] = _writes(graph)
    assert sent.path == f"/v1.0/drives/{graph.drive.id}/root:/logo.png:/content"
    assert (sent.body, sent.headers["Content-Type"]) == (png, "image/png")


def test_a_taken_name_fails_renames_or_replaces_as_asked(executor, graph):
    first = assert_tool_ok(_upload(executor, graph, name="plan.txt", text="v1"))["data"]
    error = assert_tool_error(_upload(executor, graph, name="plan.txt", text="v2"), 502, "UPSTREAM_ERROR")
    assert error["details"] | {"message": ""} == {
        "status": 409,
        "vendor_code": "nameAlreadyExists",
        "message": "",
    }

    renamed = assert_tool_ok(_upload(executor, graph, name="plan.txt", text="v2", conflict="rename"))["data"]
    assert renamed["name"] == "plan 1.txt" and renamed["id"] != first["id"]

    replaced = assert_tool_ok(_upload(executor, graph, name="plan.txt", text="v3!", conflict="replace"))[
        "data"
    ]
    assert (replaced["id"], replaced["size"]) == (first["id"], 3)
    assert [r.query[CONFLICT] for r in _writes(graph)] == [["fail"], ["fail"], ["rename"], ["replace"]]


def test_a_missing_folder_is_an_upstream_404(executor, graph):
    error = assert_tool_error(
        _upload(executor, graph, parent_id="NOPE", name="a.txt", text="x"), 502, "UPSTREAM_ERROR"
    )
    assert error["details"]["status"] == 404 and error["details"]["vendor_code"] == "itemNotFound"


@pytest.mark.parametrize(
    ("input", "path", "keyword"),
    [
        ({"name": "a.txt"}, "/input", "oneOf"),
        ({"name": "a.txt", "text": "x", "content_base64": "eA=="}, "/input", "oneOf"),
        ({"name": "a/b.txt", "text": "x"}, "/input/name", "pattern"),
        ({"name": " a.txt", "text": "x"}, "/input/name", "pattern"),
        ({"name": "..", "text": "x"}, "/input/name", "pattern"),
        ({"name": "a.txt", "content_base64": "not base64!"}, "/input/content_base64", "pattern"),
        ({"name": "a.txt", "content_base64": "eA="}, "/input/content_base64", "pattern"),
        ({"name": "a.txt", "text": "x" * (512 * 1024 + 1)}, "/input/text", "maxLength"),
        ({"name": "a.txt", "text": "x", "conflict": "overwrite"}, "/input/conflict", "enum"),
        ({"name": "a.txt", "text": "x", "content_type": "text"}, "/input/content_type", "pattern"),
        ({"name": "a.txt", "text": "x", "mode": "append"}, "/input", "additionalProperties"),
    ],
)
def test_bad_input_is_422_and_never_reaches_the_platform(executor, graph, input, path, keyword):
    error = assert_tool_error(_upload(executor, graph, **input), 422, "INVALID_INPUT")
    assert {"path": path, "keyword": keyword} in [
        {"path": e["path"], "keyword": e["keyword"]} for e in error["details"]["errors"]
    ]
    assert _writes(graph) == []


def test_it_creates_a_folder_in_a_folder(executor, graph):
    data = assert_tool_ok(
        _run(
            executor,
            "documents.folder.create",
            input={"drive_id": graph.drive.id, "parent_id": graph.folder["id"], "name": "2026 audits"},
        )
    )["data"]
    assert (data["name"], data["is_folder"], data["path"]) == (
        "2026 audits",
        True,
        f"/drives/{graph.drive.id}/root:/Runbooks",
    )
    [sent] = _writes(graph)
    assert (sent.method, sent.path) == (
        "POST",
        f"/v1.0/drives/{graph.drive.id}/items/{graph.folder['id']}/children",
    )
    assert sent.json() == {"name": "2026 audits", "folder": {}, CONFLICT: "fail"}


def test_a_folder_at_the_root_with_a_taken_name(executor, graph):
    create = {"drive_id": graph.drive.id, "name": "Runbooks"}
    error = assert_tool_error(_run(executor, "documents.folder.create", input=create), 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 409 and error["details"]["vendor_code"] == "nameAlreadyExists"
    data = assert_tool_ok(_run(executor, "documents.folder.create", input=create | {"conflict": "rename"}))[
        "data"
    ]
    assert data["name"] == "Runbooks 1"
    assert [r.path for r in _writes(graph)] == [f"/v1.0/drives/{graph.drive.id}/root/children"] * 2
    assert _writes(graph)[-1].json()[CONFLICT] == "rename"


def test_a_folder_name_is_checked_before_any_call(executor, graph):
    error = assert_tool_error(
        _run(executor, "documents.folder.create", input={"drive_id": graph.drive.id, "name": "a:b"}),
        422,
        "INVALID_INPUT",
    )
    assert error["details"]["errors"][0]["path"] == "/input/name"
    assert _writes(graph) == []


def _delete(client, graph, item_id, key="delete-1"):
    return _run(
        client,
        "documents.item.delete",
        input={"drive_id": graph.drive.id, "item_id": item_id},
        idempotency_key=key,
    )


def test_a_delete_needs_approval_then_runs_once(client_for, tenant, approver, executor, graph):
    item = graph.add_file(graph.drive, "old.txt", b"old", parent=graph.folder)
    gate = assert_tool_error(_delete(executor, graph, item["id"]), 202, "APPROVAL_REQUIRED")
    assert _writes(graph) == []

    approval_id = gate["details"]["approval_id"]
    decided = client_for(approver, tenant).post(
        f"/api/v1/approvals/{approval_id}/approve", {"reason": "cleanup"}, format="json"
    )
    assert_tool_ok(decided)
    data = assert_tool_ok(_delete(executor, graph, item["id"]))["data"]
    assert data == {"drive_id": graph.drive.id, "item_id": item["id"], "deleted": True}
    replay = _delete(executor, graph, item["id"])
    assert replay["Idempotent-Replayed"] == "true"
    assert [(r.method, r.path) for r in _writes(graph)] == [
        ("DELETE", f"/v1.0/drives/{graph.drive.id}/items/{item['id']}")
    ]
    assert graph.drive.find(item["id"]) is None and Approval.objects.get().executed_at is not None


def test_a_delete_without_an_idempotency_key_is_refused(executor, graph):
    response = _run(executor, "documents.item.delete", input={"drive_id": graph.drive.id, "item_id": "X1"})
    error = assert_tool_error(response, 422, "INVALID_INPUT")
    assert error["details"]["errors"][0]["path"] == "/idempotency_key"


def test_deleting_a_missing_item_is_an_upstream_404(client_for, tenant, approver, executor, graph):
    approval_id = _delete(executor, graph, "NOPE").json()["error"]["details"]["approval_id"]
    client_for(approver, tenant).post(f"/api/v1/approvals/{approval_id}/approve", {}, format="json")
    error = assert_tool_error(_delete(executor, graph, "NOPE"), 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 404 and error["details"]["vendor_code"] == "itemNotFound"


def test_the_write_tools_declare_their_risk_and_examples(client_for, tenant, exec_key):
    client = client_for(exec_key, tenant)
    risks = {}
    for key in ("documents.file.upload", "documents.folder.create", "documents.item.delete"):
        tool = assert_tool_ok(client.get(f"/api/v1/tools/{key}"))["data"]
        risks[key] = tool["risk_level"]
        assert tool["input_schema"]["additionalProperties"] is False
        assert tool["output_schema"]["type"] == "object" and tool["input_schema"]["examples"]
    assert risks == {
        "documents.file.upload": "write",
        "documents.folder.create": "write",
        "documents.item.delete": "destructive",
    }
