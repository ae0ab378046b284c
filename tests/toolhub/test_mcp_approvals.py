"""Approvals for MCP clients that send only a tool name and arguments (DESIGN section 16): a gated
call gets a key derived from the caller, the tool and the arguments, so repeating it after the
approver decided finds its approval and then its answer; the stateless revision asks a client that
can open links to wait for the approver."""

from __future__ import annotations

import pytest

from tests import factories
from tests.helpers import assert_tool_error
from tests.toolhub.support import assert_tool_ok
from tests.toolhub.test_mcp import ACCEPT, SEARCH, call_tool, result_of, rpc_error, stateless
from toolhub.models import Approval, ApprovalPolicy, ExecutionRecord
from toolhub.services.connections import connection_create

ARGUMENTS = {"query": "VPN", "top_k": 1}


@pytest.fixture
def gated_search(tenant):
    """The knowledge search, gated by the tenant's policy: a read tool any test can run."""
    ApprovalPolicy.objects.create(tenant=tenant, gated_risk_levels=[], always_gate=["knowledge.*"])
    factories.make_searchable_document(tenant, ["Start the VPN client to reach the intranet."], title="VPN")
    return connection_create(
        tenant=tenant, actor={"type": "system", "id": "t", "name": "t"}, name="kb", domain="knowledge",
        connector="knowledge",
    )  # fmt: skip


@pytest.fixture
def agent(client_for, exec_key):
    return client_for(exec_key, HTTP_ACCEPT=ACCEPT)


def decide(client_for, approver, tenant, approval: Approval, verb: str = "approve"):
    url = f"/api/v1/approvals/{approval.public_id}/{verb}"
    return assert_tool_ok(client_for(approver, tenant).post(url, {"reason": "checked"}, format="json"))


def test_a_gated_call_without_a_key_waits_and_says_what_to_do(agent, gated_search):
    result = call_tool(agent, SEARCH, ARGUMENTS)
    assert result["isError"] is True
    error = result["structuredContent"]
    approval = Approval.objects.get()
    assert error["code"] == "APPROVAL_REQUIRED" and error["details"]["approval_id"] == approval.public_id
    assert "approver" in error["message"] and "same call again" in error["message"]
    assert approval.idempotency_key.startswith("derived-") and approval.channel == "mcp"


def test_repeating_the_call_finds_its_approval_then_its_answer(
    agent, client_for, tenant, approver, gated_search
):
    call_tool(agent, SEARCH, ARGUMENTS)
    waiting = call_tool(agent, SEARCH, ARGUMENTS)["structuredContent"]
    assert waiting["code"] == "APPROVAL_REQUIRED" and "still waiting" in waiting["message"]
    assert Approval.objects.count() == 1
    decide(client_for, approver, tenant, Approval.objects.get())
    ran = call_tool(agent, SEARCH, ARGUMENTS)
    assert ran["isError"] is False and ran["structuredContent"]["results"][0]["title"] == "VPN"
    again = call_tool(agent, SEARCH, ARGUMENTS)
    assert again["_meta"]["idempotent_replayed"] is True
    assert again["structuredContent"] == ran["structuredContent"]
    assert list(ExecutionRecord.objects.order_by("created_at").values_list("outcome", flat=True)) == [
        "approval_required", "approval_required", "success", "replayed"]  # fmt: skip


def test_other_arguments_or_another_caller_need_their_own_approval(agent, client_for, tenant, gated_search):
    call_tool(agent, SEARCH, ARGUMENTS)
    call_tool(agent, SEARCH, ARGUMENTS | {"top_k": 2})
    _key, other = factories.make_api_key(tenant, ["tools:execute"], name="other agent")
    call_tool(client_for(other, HTTP_ACCEPT=ACCEPT), SEARCH, ARGUMENTS)
    assert Approval.objects.count() == 3
    assert len(set(Approval.objects.values_list("idempotency_key", flat=True))) == 3


def test_a_rejected_call_is_refused_with_the_reason(agent, client_for, tenant, approver, gated_search):
    call_tool(agent, SEARCH, ARGUMENTS)
    decide(client_for, approver, tenant, Approval.objects.get(), verb="reject")
    refused = call_tool(agent, SEARCH, ARGUMENTS)["structuredContent"]
    assert refused["code"] == "APPROVAL_REJECTED" and refused["details"]["reason"] == "checked"


def test_rest_still_asks_for_a_key(executor, gated_search):
    response = executor.post(f"/api/v1/tools/{SEARCH}/execute", {"input": ARGUMENTS}, format="json")
    assert (
        assert_tool_error(response, 422, "INVALID_INPUT")["details"]["errors"][0]["path"]
        == "/idempotency_key"
    )


# ---- the stateless revision: wait for the person


LINKS = {"elicitation": {"url": {}}}


def call_waiting(agent, **params):
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": LINKS,
    }
    body = {"_meta": meta, "name": SEARCH, "arguments": ARGUMENTS} | params
    return stateless(agent, "tools/call", body, name=SEARCH)


def test_a_client_that_opens_links_is_asked_to_wait_for_the_approver(
    agent, client_for, tenant, approver, gated_search
):
    asked = result_of(call_waiting(agent))
    approval = Approval.objects.get()
    assert asked["resultType"] == "input_required"
    elicitation = asked["inputRequests"]["approval"]
    assert elicitation["method"] == "elicitation/create" and elicitation["params"]["mode"] == "url"
    assert elicitation["params"]["url"] == f"http://testserver/admin/toolhub/approval/{approval.pk}/change/"
    assert approval.public_id in elicitation["params"]["message"]
    state, accepted = asked["requestState"], {"approval": {"action": "accept"}}
    still = result_of(call_waiting(agent, requestState=state, inputResponses=accepted))
    assert still["resultType"] == "input_required"
    decide(client_for, approver, tenant, approval)
    done = result_of(call_waiting(agent, requestState=state, inputResponses=accepted))
    assert done["resultType"] == "complete" and done["isError"] is False


def test_a_person_who_declines_to_wait_gets_the_approval_result(agent, gated_search):
    state = result_of(call_waiting(agent))["requestState"]
    declined = {"approval": {"action": "decline"}}
    result = result_of(call_waiting(agent, requestState=state, inputResponses=declined))
    assert result["isError"] is True and result["structuredContent"]["code"] == "APPROVAL_REQUIRED"


def test_a_state_it_did_not_hand_out_is_invalid_params(agent, gated_search):
    rpc_error(call_waiting(agent, requestState="forged"), 400, -32602)


def test_a_client_that_cannot_open_links_gets_the_approval_result(agent, gated_search):
    result = result_of(stateless(agent, "tools/call", {"name": SEARCH, "arguments": ARGUMENTS}, name=SEARCH))
    assert result["resultType"] == "complete" and result["structuredContent"]["code"] == "APPROVAL_REQUIRED"
