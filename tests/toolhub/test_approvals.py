"""Approvals: the gated call, the pending repeat, the decision, exactly one execution, the replay;
the reject and expiry flows; the /api/v1/approvals endpoints."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.models import AuditEntry
from tests import factories
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok
from toolhub.models import Approval, ApprovalPolicy, ExecutionRecord

ORG_LIST = EXEC_URL.format("itdocs.organization.list")
CALL = {"input": {"name": "Acme Corp"}, "idempotency_key": "change-42"}


@pytest.fixture
def gated(tenant):
    """This tenant's policy puts the itdocs tools behind an approval."""
    return ApprovalPolicy.objects.create(
        tenant=tenant, gated_risk_levels=["destructive"], always_gate=["itdocs.*"]
    )


def _approve(client_for, user, tenant, approval_id, **body):
    return client_for(user, tenant).post(f"/api/v1/approvals/{approval_id}/approve", body, format="json")


def _reject(client_for, user, tenant, approval_id, **body):
    return client_for(user, tenant).post(f"/api/v1/approvals/{approval_id}/reject", body, format="json")


def test_an_approved_call_runs_once_and_then_replays(
    client_for, tenant, approver, executor, gated, itdocs_connection, itdocs_fake
):
    gate = executor.post(ORG_LIST, CALL, format="json")
    error = assert_tool_error(gate, 202, "APPROVAL_REQUIRED")
    approval_id = error["details"]["approval_id"]
    assert error["details"]["status"] == "pending" and error["details"]["expires_at"].endswith("Z")

    pending = assert_tool_error(executor.post(ORG_LIST, CALL, format="json"), 202, "APPROVAL_REQUIRED")
    assert pending["details"]["approval_id"] == approval_id
    assert itdocs_fake.received == []

    decided = _approve(client_for, approver, tenant, approval_id, reason="change window")
    assert assert_tool_ok(decided)["data"]["status"] == "approved"

    ran = executor.post(ORG_LIST, CALL, format="json")
    assert assert_tool_ok(ran)["data"]["organizations"][0]["name"] == "Acme Corp"
    replay = executor.post(ORG_LIST, CALL, format="json")
    assert replay.content == ran.content and replay["Idempotent-Replayed"] == "true"
    assert len(itdocs_fake.received) == 1
    assert Approval.objects.get().executed_at is not None
    decision = AuditEntry.objects.get(action="APPROVAL_DECIDED")
    assert decision.details["decision"] == "approved" and decision.actor["id"] == str(approver.id)
    assert AuditEntry.objects.filter(action="TOOL_EXECUTED").count() == 1


def test_a_gated_call_needs_an_idempotency_key(executor, gated, itdocs_connection):
    error = assert_tool_error(executor.post(ORG_LIST, {"input": {}}, format="json"), 422, "INVALID_INPUT")
    assert error["details"]["errors"][0]["path"] == "/idempotency_key"
    assert not Approval.objects.exists()


def test_a_rejected_call_is_final(
    client_for, tenant, approver, executor, gated, itdocs_connection, itdocs_fake
):
    approval_id = executor.post(ORG_LIST, CALL, format="json").json()["error"]["details"]["approval_id"]
    assert_tool_ok(_reject(client_for, approver, tenant, approval_id, reason="not in the change window"))
    error = assert_tool_error(executor.post(ORG_LIST, CALL, format="json"), 403, "APPROVAL_REJECTED")
    assert error["details"]["reason"] == "not in the change window"
    assert_tool_error(_approve(client_for, approver, tenant, approval_id), 409, "APPROVAL_ALREADY_DECIDED")
    assert itdocs_fake.received == []


def test_an_expired_approval_is_final(
    client_for, tenant, approver, executor, gated, itdocs_connection, itdocs_fake
):
    approval_id = executor.post(ORG_LIST, CALL, format="json").json()["error"]["details"]["approval_id"]
    Approval.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert_tool_error(executor.post(ORG_LIST, CALL, format="json"), 403, "APPROVAL_EXPIRED")
    assert_tool_error(_approve(client_for, approver, tenant, approval_id), 409, "APPROVAL_ALREADY_DECIDED")
    assert Approval.objects.get().status == "expired"
    assert AuditEntry.objects.filter(action="APPROVAL_EXPIRED").count() == 1
    assert itdocs_fake.received == []


def test_the_cleanup_job_expires_pending_approvals(executor, gated, itdocs_connection, settings):
    from toolhub.services.cleanup import toolhub_cleanup

    executor.post(ORG_LIST, CALL, format="json")
    Approval.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    toolhub_cleanup()
    assert Approval.objects.get().status == "expired"


def test_approvals_expire_after_the_configured_ttl(executor, gated, itdocs_connection, settings):
    settings.APPROVAL_TTL_HOURS = 2
    executor.post(ORG_LIST, CALL, format="json")
    approval = Approval.objects.get()
    assert timedelta(hours=2) - (approval.expires_at - approval.created_at) < timedelta(seconds=5)


def test_a_dry_run_of_a_gated_call_creates_no_approval(executor, gated, itdocs_connection, itdocs_fake):
    body = assert_tool_ok(executor.post(ORG_LIST, {**CALL, "dry_run": True}, format="json"))
    assert body["data"] == {
        "dry_run": True,
        "valid": True,
        "tool_key": "itdocs.organization.list",
        "risk_level": "read",
        "approval_required": True,
        "connection_id": itdocs_connection.public_id,
    }
    assert not Approval.objects.exists() and itdocs_fake.received == []
    assert ExecutionRecord.objects.get().outcome == "dry_run"


def test_a_dry_run_reports_invalid_input_without_failing(executor, itdocs_connection, itdocs_fake):
    body = assert_tool_ok(executor.post(ORG_LIST, {"input": {"page": 0}, "dry_run": True}, format="json"))
    assert body["data"]["valid"] is False and body["data"]["approval_required"] is False
    assert body["data"]["errors"][0]["path"] == "/input/page"
    assert itdocs_fake.received == []


def test_the_requester_cannot_approve_its_own_call(client_for, tenant, gated, itdocs_connection):
    owner = factories.make_user(tenant, ["tenant_admin"], username="keyowner")
    _key, raw = factories.make_api_key(tenant, ["tools:execute"], created_by=owner)
    approval_id = (
        client_for(raw, tenant).post(ORG_LIST, CALL, format="json").json()["error"]["details"]["approval_id"]
    )
    assert_tool_error(_approve(client_for, owner, tenant, approval_id), 403, "FORBIDDEN")
    # A machine principal never decides, its own call or any other.
    assert_tool_error(
        client_for(raw, tenant).post(f"/api/v1/approvals/{approval_id}/approve", {}, format="json"),
        403,
        "FORBIDDEN",
    )
    assert Approval.objects.get().status == "pending"


def test_only_approvers_decide(client_for, tenant, teammate, executor, gated, itdocs_connection):
    approval_id = executor.post(ORG_LIST, CALL, format="json").json()["error"]["details"]["approval_id"]
    assert_tool_error(_approve(client_for, teammate, tenant, approval_id), 403, "FORBIDDEN")
    assert Approval.objects.get().status == "pending"


def test_a_tenant_admin_is_an_approver(client_for, tenant, owner, executor, gated, itdocs_connection):
    approval_id = executor.post(ORG_LIST, CALL, format="json").json()["error"]["details"]["approval_id"]
    assert assert_tool_ok(_approve(client_for, owner, tenant, approval_id))["data"]["status"] == "approved"


def test_a_rejection_needs_a_reason(client_for, tenant, approver, executor, gated, itdocs_connection):
    approval_id = executor.post(ORG_LIST, CALL, format="json").json()["error"]["details"]["approval_id"]
    error = assert_tool_error(
        _reject(client_for, approver, tenant, approval_id, reason="  "), 422, "VALIDATION_ERROR"
    )
    assert "reason" in error["details"]
    assert Approval.objects.get().status == "pending"


@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_a_decision_body_that_is_not_json_is_invalid_input(
    client_for, tenant, approver, executor, gated, itdocs_connection, verb
):
    approval_id = executor.post(ORG_LIST, CALL, format="json").json()["error"]["details"]["approval_id"]
    response = client_for(approver, tenant).post(
        f"/api/v1/approvals/{approval_id}/{verb}", b"{reason", content_type="application/json"
    )
    error = assert_tool_error(response, 422, "INVALID_INPUT")
    assert [(e["path"], e["keyword"]) for e in error["details"]["errors"]] == [("/", "json")]
    assert Approval.objects.get().status == "pending"


def test_a_second_decision_loses(client_for, tenant, approver, owner, executor, gated, itdocs_connection):
    approval_id = executor.post(ORG_LIST, CALL, format="json").json()["error"]["details"]["approval_id"]
    assert_tool_ok(_approve(client_for, approver, tenant, approval_id))
    error = assert_tool_error(
        _reject(client_for, owner, tenant, approval_id, reason="late"), 409, "APPROVAL_ALREADY_DECIDED"
    )
    assert error["details"]["status"] == "approved"
    assert AuditEntry.objects.filter(action="APPROVAL_DECIDED").count() == 1


def test_approvers_list_the_queue_pending_first_and_filter_by_status(
    client_for, tenant, approver, executor, gated, itdocs_connection
):
    first = executor.post(ORG_LIST, CALL, format="json").json()["error"]["details"]["approval_id"]
    second = executor.post(ORG_LIST, {**CALL, "idempotency_key": "change-43"}, format="json").json()["error"][
        "details"
    ]["approval_id"]
    assert_tool_ok(_approve(client_for, approver, tenant, first))
    client = client_for(approver, tenant)
    listed = assert_tool_ok(client.get("/api/v1/approvals"))["data"]
    assert [a["id"] for a in listed["approvals"]] == [second, first]
    assert listed["pagination"] == {"total": 2, "limit": 50, "offset": 0, "hasMore": False}
    pending = assert_tool_ok(client.get("/api/v1/approvals?status=pending"))["data"]["approvals"]
    assert [a["id"] for a in pending] == [second]
    one = assert_tool_ok(client.get(f"/api/v1/approvals/{second}"))["data"]
    assert one["tool_key"] == "itdocs.organization.list" and one["input"] == {"name": "Acme Corp"}
    assert one["requested_by"]["name"] == "agent"


def test_a_machine_sees_only_the_approvals_of_its_own_calls(
    client_for, tenant, executor, gated, itdocs_connection
):
    mine = executor.post(ORG_LIST, CALL, format="json").json()["error"]["details"]["approval_id"]
    _key, other_raw = factories.make_api_key(tenant, ["tools:execute"])
    theirs = (
        client_for(other_raw, tenant)
        .post(ORG_LIST, CALL, format="json")
        .json()["error"]["details"]["approval_id"]
    )
    listed = assert_tool_ok(executor.get("/api/v1/approvals"))["data"]["approvals"]
    assert [a["id"] for a in listed] == [mine]
    assert_tool_error(executor.get(f"/api/v1/approvals/{theirs}"), 404, "APPROVAL_NOT_FOUND")


def test_another_tenants_approval_is_not_found_and_unchanged(
    client_for, tenant, outsider, other_tenant, executor, gated, itdocs_connection
):
    approval_id = executor.post(ORG_LIST, CALL, format="json").json()["error"]["details"]["approval_id"]
    assert_tool_error(
        client_for(outsider, other_tenant).get(f"/api/v1/approvals/{approval_id}"), 404, "APPROVAL_NOT_FOUND"
    )
    assert_tool_error(_approve(client_for, outsider, other_tenant, approval_id), 404, "APPROVAL_NOT_FOUND")
    assert Approval.objects.get().status == "pending"


@pytest.mark.parametrize("bad", ["nope", "apr_123", "apr_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"])
def test_a_malformed_approval_id_is_an_invalid_parameter(client_for, tenant, approver, bad):
    assert_tool_error(client_for(approver, tenant).get(f"/api/v1/approvals/{bad}"), 400, "INVALID_PARAMETER")


def test_a_bad_status_filter_is_an_invalid_parameter(client_for, tenant, approver):
    assert_tool_error(
        client_for(approver, tenant).get("/api/v1/approvals?status=maybe"), 400, "INVALID_PARAMETER"
    )


def test_the_default_policy_gates_destructive_and_admin_tools_only(tenant):
    from toolhub.registry import Tool
    from toolhub.selectors import policy_gates

    def tool(risk):
        return Tool(
            "itsm.x.y",
            "x",
            "x",
            "itsm",
            risk,
            "1",
            {"type": "object", "additionalProperties": False},
            {},
            {"itsmplatform": None},
        )

    assert [policy_gates(tenant=tenant, tool=tool(r)) for r in ("read", "write", "destructive", "admin")] == [
        False,
        False,
        True,
        True,
    ]
    ApprovalPolicy.objects.create(
        tenant=tenant, gated_risk_levels=["write", "destructive"], never_gate=["itsm.x.*"]
    )
    assert not policy_gates(tenant=tenant, tool=tool("destructive"))
