"""The approval queue and an approval's page in the console: pending first with tool, risk,
requester, age and time left; the page shows the request and, to approvers only, Approve and Reject
(with a reason), decided by the API's rules (four eyes, once, audited); decisions show who, when, why."""

from __future__ import annotations

import re

import pytest

from core.models import AuditEntry
from identity.services.users import tenant_user_create
from tests import factories
from tests.toolhub.support import EXEC_URL
from toolhub.models import Approval, ApprovalPolicy

ORG_LIST = EXEC_URL.format("itdocs.organization.list")
QUEUE = "/admin/toolhub/approval/"

pytestmark = pytest.mark.django_db


@pytest.fixture
def gated(tenant, client_for, itdocs_connection):
    """call(key, raw_api_key=agent) -> the pending approval of an itdocs call made with that key."""
    ApprovalPolicy.objects.create(tenant=tenant, gated_risk_levels=[], always_gate=["itdocs.*"])
    _, agent = factories.make_api_key(tenant, ["tools:execute"], name="agent")

    def call(key: str, raw: str = agent) -> Approval:
        body = {"input": {"name": "Acme Corp"}, "idempotency_key": key}
        response = client_for(raw, tenant).post(ORG_LIST, body, format="json")
        assert response.status_code == 202, response.content
        return Approval.objects.get(idempotency_key=key)

    return call


@pytest.fixture
def alice(tenant):
    return tenant_user_create(
        tenant=tenant,
        username="alice",
        password=factories.PASSWORD,
        roles=["approver"],
        email="alice@acme.test",
    )


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def detail(approval: Approval) -> str:
    return f"{QUEUE}{approval.id}/change/"


def decide(client, approval: Approval, decision: str, reason: str = ""):
    return client.post(f"{QUEUE}{approval.id}/decide/", {"decision": decision, "reason": reason}, follow=True)


def messages_of(response) -> str:
    return " ".join(str(m) for m in response.context["messages"])


def test_the_queue_shows_pending_calls_first_with_requester_age_time_left_and_decider(as_alice, gated):
    decided, waiting = gated("first"), gated("second")
    decide(as_alice, decided, "reject", "change freeze")
    page = as_alice.get(QUEUE).content.decode()
    headers = re.findall(r'<th scope="col" class="[^"]*column-(\w+)', page)
    assert headers == ["tool", "risk", "state", "requested_by", "age", "time_left", "decided"]
    assert page.index(str(waiting.id)) < page.index(str(decided.id))
    assert "itdocs.organization.list" in page and "agent (API key)" in page
    assert re.search(r"23(\xa0| )hours", page)  # time left of the pending one
    assert '<td class="field-decided">alice (user)</td>' in page


def test_an_approval_page_shows_the_request_and_approve_and_reject_but_no_save(as_alice, gated):
    approval = gated("k1")
    response = as_alice.get(detail(approval))
    page = response.content.decode()
    assert response.status_code == 200
    for fact in [
        "itdocs.organization.list",
        "itdocs-itdocs-prod-001 (itdocs/itdocs, conn_",
        "agent (API key)",
        "REST API from 127.0.0.1",
        approval.fingerprint,
        "k1",
        "&quot;name&quot;: &quot;Acme Corp&quot;",  # the input, indented JSON
    ]:
        assert fact in page, fact
    assert 'name="approve"' in page and 'name="reject"' in page and "required" in page
    assert 'name="_save"' not in page and 'name="_continue"' not in page
    assert as_alice.post(detail(approval), {"status": "approved"}).status_code == 403


def test_approving_and_rejecting_on_the_page_decide_once_audited_and_show_who_when_why(as_alice, gated):
    yes, no = gated("yes"), gated("no")
    assert "approved" in messages_of(decide(as_alice, yes, "approve"))
    asked = decide(as_alice, no, "reject", "   ")
    assert "A reason is required to reject" in messages_of(asked)
    assert 'name="reject"' in asked.content.decode()  # asked again, on the same page
    decide(as_alice, no, "reject", "Not during the change freeze")
    yes.refresh_from_db(), no.refresh_from_db()
    assert (yes.status, yes.decided_by["name"]) == ("approved", "alice")
    assert (no.status, no.reason) == ("rejected", "Not during the change freeze")
    decisions = AuditEntry.objects.filter(action="APPROVAL_DECIDED").order_by("seq")
    assert [e.details["decision"] for e in decisions] == ["approved", "rejected"]
    assert "already approved" in messages_of(decide(as_alice, yes, "reject", "too late"))
    page = as_alice.get(detail(no)).content.decode()
    assert "alice (user) &lt;alice@acme.test&gt;" in page and "Not during the change freeze" in page
    assert 'name="approve"' not in page and 'name="reject"' not in page


def test_the_user_behind_the_requesting_key_cannot_decide_its_call(as_alice, alice, tenant, gated):
    _, own_key = factories.make_api_key(tenant, ["tools:execute"], name="alices-agent", created_by=alice)
    approval = gated("mine", own_key)
    response = decide(as_alice, approval, "approve")
    assert "The requester of a call cannot decide its approval." in messages_of(response)
    approval.refresh_from_db()
    assert approval.status == "pending"


def test_auditors_see_the_queue_and_pages_but_no_decision_controls(client, tenant, gated):
    approval = gated("k1")
    auditor = tenant_user_create(
        tenant=tenant, username="ada", password=factories.PASSWORD, roles=["audit_viewer"]
    )
    client.force_login(auditor)
    queue = client.get(QUEUE).content.decode()
    assert "itdocs.organization.list" in queue
    assert "action-select" not in queue and "approve_selected" not in queue
    page = client.get(detail(approval)).content.decode()
    assert "agent (API key)" in page and 'name="approve"' not in page and 'name="reject"' not in page
    assert client.post(f"{QUEUE}{approval.id}/decide/", {"decision": "approve"}).status_code == 403
    approval.refresh_from_db()
    assert approval.status == "pending"


def test_another_tenants_approver_cannot_see_or_decide(client, other_tenant, gated):
    approval = gated("k1")
    stranger = tenant_user_create(
        tenant=other_tenant, username="bob", password=factories.PASSWORD, roles=["approver"]
    )
    client.force_login(stranger)
    assert client.get(detail(approval)).status_code == 302  # "does not exist"
    assert client.post(f"{QUEUE}{approval.id}/decide/", {"decision": "approve"}).status_code == 404


def test_a_decision_reads_as_a_sentence_about_the_call(as_alice, gated):
    approval = gated("sentence")
    page = decide(as_alice, approval, "reject", "not now").content.decode()
    assert f"Call of {approval.tool_key} rejected ({approval.public_id})." in page
    assert "Itdocs." not in page
