"""The ITSM tools against a fake ITSM instance over HTTPS, through the real client."""

from __future__ import annotations

import base64

import pytest

from tests.fakes.itsm_tools import FakeItsmTools
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok, make_connection, make_credential
from toolhub.models import Approval


@pytest.fixture
def itsm(loopback, tenant):
    with FakeItsmTools() as fake:
        loopback.OUTBOUND_CA_BUNDLE = fake.ca_file
        make_credential(tenant, "itsm-prod-001", auth_type="oauth2_bearer", access_token=fake.bearer("tok-1"))
        make_connection(
            tenant, fake.url, integration_id="itsm-prod-001", domain="itsm", connector="itsmplatform"
        )
        yield fake


def _run(client, tool, **body):
    return client.post(EXEC_URL.format(tool), body, format="json")


def test_it_gets_an_incident_by_sys_id_and_by_number(executor, itsm):
    row = itsm.add_incident("Printer on fire", priority="1")
    by_id = assert_tool_ok(_run(executor, "itsm.incident.get", input={"sys_id": row["sys_id"]}))["data"]
    by_number = assert_tool_ok(_run(executor, "itsm.incident.get", input={"number": row["number"]}))["data"]
    assert by_id == by_number and by_id["short_description"] == "Printer on fire" and by_id["priority"] == "1"
    assert itsm.received[-1].headers["Authorization"] == "Bearer tok-1"


def test_an_unknown_incident_is_an_upstream_404(executor, itsm):
    error = assert_tool_error(
        _run(executor, "itsm.incident.get", input={"sys_id": "0" * 32}), 502, "UPSTREAM_ERROR"
    )
    assert error["details"]["status"] == 404 and error["details"]["message"] == "No Record found"


def test_it_lists_incidents_with_filters(executor, itsm):
    itsm.add_incident("a", priority="1")
    itsm.add_incident("b", priority="3")
    data = assert_tool_ok(_run(executor, "itsm.incident.list", input={"priority": 1, "limit": 5}))["data"]
    assert [i["short_description"] for i in data["incidents"]] == ["a"]
    sent = itsm.requests_to(r"/api/now/table/incident$")[-1]
    assert sent.query["sysparm_query"] == ["priority=1^ORDERBYDESCsys_updated_on"]
    assert sent.query["sysparm_limit"] == ["5"]


def test_it_creates_and_updates_an_incident(executor, itsm):
    created = assert_tool_ok(
        _run(executor, "itsm.incident.create", input={"short_description": "VPN down", "urgency": 1})
    )["data"]
    assert created["number"].startswith("INC") and itsm.incidents[created["sys_id"]]["urgency"] == "1"
    updated = assert_tool_ok(
        _run(
            executor,
            "itsm.incident.update",
            input={"sys_id": created["sys_id"], "fields": {"state": 2, "work_notes": "on it"}},
        )
    )["data"]
    assert updated["state"] == "2"
    assert itsm.requests_to(r"/api/now/table/incident/")[-1].method == "PATCH"


def test_write_tools_are_not_retried(executor, itsm):
    itsm.throttle_creates = 1
    assert_tool_error(
        _run(executor, "itsm.incident.create", input={"short_description": "x"}), 429, "RATE_LIMITED"
    )
    assert len([r for r in itsm.received if r.method == "POST" and r.path == "/api/now/table/incident"]) == 1


def test_delete_is_destructive_and_needs_approval_by_default(client_for, tenant, approver, executor, itsm):
    row = itsm.add_incident("duplicate")
    body = {"input": {"sys_id": row["sys_id"]}, "idempotency_key": "del-1"}
    gate = assert_tool_error(
        executor.post(EXEC_URL.format("itsm.incident.delete"), body, format="json"), 202, "APPROVAL_REQUIRED"
    )
    assert row["sys_id"] in itsm.incidents
    client_for(approver, tenant).post(
        f"/api/v1/approvals/{gate['details']['approval_id']}/approve", {}, format="json"
    )
    done = assert_tool_ok(executor.post(EXEC_URL.format("itsm.incident.delete"), body, format="json"))
    assert done["data"] == {"sys_id": row["sys_id"], "deleted": True}
    assert row["sys_id"] not in itsm.incidents
    assert Approval.objects.get().executed_at is not None


def test_it_searches_published_knowledge_articles(executor, itsm):
    itsm.add_article("Reset your VPN token", "Open the portal and ...")
    itsm.add_article("VPN draft", "not yet", published=False)
    data = assert_tool_ok(_run(executor, "itsm.knowledge.search", input={"query": "VPN"}))["data"]
    assert data["count"] == 1 and data["articles"][0]["short_description"] == "Reset your VPN token"
    # A `^` in the query cannot smuggle conditions into the encoded query.
    _run(executor, "itsm.knowledge.search", input={"query": "x^workflow_state=draft"})
    sent = itsm.requests_to("kb_knowledge")[-1].query["sysparm_query"][0].split("^")
    assert sent[0] == "workflow_state=published" and "workflow_state=draft" not in sent


@pytest.fixture
def instance(loopback):
    """An instance with a user (`svc`/`pw`), an OAuth client (`cid`) and one incident."""
    with FakeItsmTools() as fake:
        loopback.OUTBOUND_CA_BUNDLE = fake.ca_file
        fake.users["svc"] = "pw"
        fake.clients["cid"] = "csecret"
        fake.add_incident("x")
        yield fake


def _connect(fake: FakeItsmTools, tenant, auth_type: str, **values) -> None:
    make_credential(tenant, "itsm-other", auth_type=auth_type, **values)
    make_connection(tenant, fake.url, integration_id="itsm-other", domain="itsm", connector="itsmplatform")


def _table_auth(fake: FakeItsmTools) -> set[str]:
    return {r.headers.get("Authorization", "") for r in fake.requests_to(r"^/api/now/table/")}


def test_a_basic_auth_credential_sends_http_basic_and_asks_for_no_token(
    instance, client_for, tenant, exec_key
):
    basic = base64.b64encode(b"svc:pw").decode()
    _connect(instance, tenant, "basic_auth", access_token=basic, metadata={"username": "svc"})
    data = assert_tool_ok(_run(client_for(exec_key, tenant), "itsm.incident.list", input={}))["data"]
    assert len(data["incidents"]) == 1
    assert _table_auth(instance) == {f"Basic {basic}"}
    assert instance.requests_to("oauth_token") == []


@pytest.mark.parametrize(
    ("auth_type", "values", "grant"),
    [
        ("bearer_token", {"access_token": "static-1"}, None),
        ("jwt", {"access_token": "static-1"}, None),
        ("oauth2_client_credentials", {"access_token": "static-1"}, None),
        (
            "oauth2_bearer",
            {"secrets": {"clientId": "cid", "clientSecret": "csecret", "username": "svc", "password": "pw"}},
            {"grant_type": "password", "client_id": "cid", "client_secret": "csecret", "username": "svc"},
        ),
    ],
)
def test_other_auth_types_use_a_bearer_and_only_oauth_ones_the_token_grant(
    instance, client_for, tenant, exec_key, auth_type, values, grant
):
    _connect(instance, tenant, auth_type, **values)
    instance.bearer("static-1")
    data = assert_tool_ok(_run(client_for(exec_key, tenant), "itsm.incident.list", input={}))["data"]
    assert len(data["incidents"]) == 1
    forms = [r.form() for r in instance.requests_to("oauth_token")]
    assert [grant.items() <= form.items() for form in forms] == ([True] if grant else [])
    [header] = _table_auth(instance)
    assert header.startswith("Bearer ") and (grant or header == "Bearer static-1")


def test_an_auth_type_the_connector_cannot_use_is_refused_before_any_call(
    instance, client_for, tenant, exec_key
):
    _connect(instance, tenant, "api_key", access_token="k-1")
    error = assert_tool_error(
        _run(client_for(exec_key, tenant), "itsm.incident.list", input={}), 404, "CONNECTION_NOT_FOUND"
    )
    assert "api_key" in error["message"] and instance.received == []
