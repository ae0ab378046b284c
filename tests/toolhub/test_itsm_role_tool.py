"""itsm.user_role.grant (risk `admin`) against a fake ITSM instance over HTTPS, through the real
client and POST /api/v1/tools/{key}/execute: it waits for an approver, then creates one
`sys_user_has_role` record and answers it."""

from __future__ import annotations

import pytest

from tests.fakes.itsm_tools import FakeItsmTools
from tests.fakes.server import Reply
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok, make_connection, make_credential

URL = EXEC_URL.format("itsm.user_role.grant")
USER = "62826bf03710200044e0bfc8bcbe5df1"
ROLE = "282bf1fac6112285017366cb5f867469"


@pytest.fixture
def itsm(loopback, tenant):
    with FakeItsmTools() as fake:
        loopback.OUTBOUND_CA_BUNDLE = fake.ca_file
        make_credential(tenant, "itsm-prod-001", auth_type="oauth2_bearer", access_token=fake.bearer("tok-1"))
        make_connection(
            tenant, fake.url, integration_id="itsm-prod-001", domain="itsm", connector="itsmplatform"
        )
        yield fake


@pytest.fixture
def grant(client_for, tenant, approver, executor, itsm):
    """Execute the tool with `input` under `key`, approving its call first when it is gated."""

    def run(key="grant-1", **input):
        body = {"input": {"user": USER, "role": ROLE, **input}, "idempotency_key": key}
        response = executor.post(URL, body, format="json")
        if response.status_code != 202:
            return response
        approval_id = response.json()["error"]["details"]["approval_id"]
        assert_tool_ok(
            client_for(approver, tenant).post(f"/api/v1/approvals/{approval_id}/approve", {}, format="json")
        )
        return executor.post(URL, body, format="json")

    return run


def _grants(itsm):
    return itsm.requests_to(r"/api/now/table/sys_user_has_role$")


def test_it_grants_the_role_and_answers_the_record(grant, itsm):
    data = assert_tool_ok(grant())["data"]
    [row] = itsm.role_grants
    assert data == {
        "sys_id": row["sys_id"],
        "user": USER,
        "role": ROLE,
        "state": "active",
        "inherited": False,
    }
    [sent] = _grants(itsm)
    assert sent.method == "POST" and sent.json() == {"user": USER, "role": ROLE}
    assert sent.query["sysparm_exclude_reference_link"] == ["true"]
    assert sent.headers["Authorization"] == "Bearer tok-1"


def test_the_call_waits_for_an_approver_and_sends_nothing_before(executor, itsm):
    body = {"input": {"user": USER, "role": ROLE}}
    gate = assert_tool_error(
        executor.post(URL, body | {"idempotency_key": "g"}, format="json"), 202, "APPROVAL_REQUIRED"
    )
    assert gate["details"]["approval_id"]
    error = assert_tool_error(executor.post(URL, body, format="json"), 422, "INVALID_INPUT")
    assert error["details"]["errors"][0]["path"] == "/idempotency_key"
    assert _grants(itsm) == [] and itsm.role_grants == []


def test_an_approved_grant_runs_once_and_replays(grant, itsm):
    assert_tool_ok(grant())
    assert grant()["Idempotent-Replayed"] == "true"
    assert len(_grants(itsm)) == 1 and len(itsm.role_grants) == 1


@pytest.mark.parametrize(
    ("input", "path", "keyword"),
    [
        ({"user": "admin"}, "/input/user", "pattern"),
        ({"role": ROLE.upper()}, "/input/role", "pattern"),
        ({"role": None}, "/input/role", "type"),
        ({"granted_by": USER}, "/input", "additionalProperties"),
    ],
)
def test_bad_input_is_422_and_never_reaches_the_instance(executor, itsm, input, path, keyword):
    body = {"input": {"user": USER, "role": ROLE, **input}, "idempotency_key": "k"}
    error = assert_tool_error(executor.post(URL, body, format="json"), 422, "INVALID_INPUT")
    assert {"path": path, "keyword": keyword} in [
        {"path": e["path"], "keyword": e["keyword"]} for e in error["details"]["errors"]
    ]
    assert itsm.received == []


def test_a_missing_member_is_named(executor, itsm):
    body = {"input": {"user": USER}, "idempotency_key": "k"}
    error = assert_tool_error(executor.post(URL, body, format="json"), 422, "INVALID_INPUT")
    assert [(e["path"], e["keyword"]) for e in error["details"]["errors"]] == [("/input/role", "required")]


def test_a_role_already_held_is_the_instances_refusal(grant, itsm):
    assert_tool_ok(grant(key="first"))
    error = assert_tool_error(grant(key="second"), 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 403 and error["details"]["message"] == "Operation Failed"
    assert len(itsm.role_grants) == 1


def test_an_account_without_user_admin_is_refused_by_the_instance(grant, itsm):
    detail = "ACL Exception Insert Failed due to security constraints"
    itsm.queue_reply(
        Reply(403, {"error": {"message": "Operation Failed", "detail": detail}, "status": "failure"}),
        path="sys_user_has_role",
    )
    error = assert_tool_error(grant(), 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 403 and itsm.role_grants == []


def test_the_tool_is_admin_and_documents_its_input(client_for, tenant, exec_key):
    tool = assert_tool_ok(client_for(exec_key, tenant).get("/api/v1/tools/itsm.user_role.grant"))["data"]
    assert tool["risk_level"] == "admin" and tool["connectors"] == ["itsmplatform"]
    assert tool["input_schema"]["additionalProperties"] is False and tool["input_schema"]["examples"]
