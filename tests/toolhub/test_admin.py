"""The Django admin pages of the tool hub: the approval queue (pending first, approve, reject with a
reason, approvers only), connections, policies and execution records."""

from __future__ import annotations

import pytest

from core.models import AuditEntry
from tests import factories
from tests.toolhub.support import EXEC_URL
from toolhub.models import Approval, ApprovalPolicy

ORG_LIST = EXEC_URL.format("itdocs.organization.list")
QUEUE = "/admin/toolhub/approval/"


@pytest.fixture
def two_pending(tenant, executor, itdocs_connection):
    ApprovalPolicy.objects.create(tenant=tenant, gated_risk_levels=[], always_gate=["itdocs.*"])
    for key in ("a", "b"):
        executor.post(ORG_LIST, {"input": {}, "idempotency_key": key}, format="json")
    return list(Approval.objects.order_by("created_at"))


@pytest.fixture
def staff(db, client):
    user = factories.make_super_admin(username="root")
    client.force_login(user)
    return client


def test_the_queue_shows_pending_calls_first(staff, two_pending):
    first, second = two_pending
    Approval.objects.filter(id=second.id).update(status="rejected", reason="no")
    page = staff.get(QUEUE).content.decode()
    assert page.index(str(first.id)) < page.index(str(second.id))


def test_approving_from_the_queue_decides_and_audits(staff, two_pending):
    first, _ = two_pending
    response = staff.post(
        QUEUE, {"action": "approve_selected", "_selected_action": [str(first.id)]}, follow=True
    )
    assert response.status_code == 200
    first.refresh_from_db()
    assert first.status == "approved" and first.decided_by["id"]
    assert AuditEntry.objects.filter(action="APPROVAL_DECIDED").count() == 1


def test_rejecting_from_the_queue_asks_for_a_reason(staff, two_pending):
    first, _ = two_pending
    form = staff.post(QUEUE, {"action": "reject_selected", "_selected_action": [str(first.id)]})
    assert form.status_code == 200 and b"reason" in form.content
    first.refresh_from_db()
    assert first.status == "pending"
    staff.post(QUEUE, {"action": "reject_selected", "_selected_action": [str(first.id)], "reason": "freeze"})
    first.refresh_from_db()
    assert (first.status, first.reason) == ("rejected", "freeze")


def test_staff_who_are_not_approvers_of_the_tenant_cannot_decide(client, other_tenant, two_pending):
    from django.contrib.auth.models import Permission

    outsider = factories.make_user(other_tenant, ["approver"], username="staffer", is_staff=True)
    outsider.user_permissions.add(*Permission.objects.filter(codename__endswith="approval"))
    client.force_login(outsider)
    first, _ = two_pending
    client.post(QUEUE, {"action": "approve_selected", "_selected_action": [str(first.id)]})
    first.refresh_from_db()
    assert first.status == "pending"


@pytest.mark.parametrize(
    "page",
    ["/admin/toolhub/connection/", "/admin/toolhub/approvalpolicy/add/", "/admin/toolhub/executionrecord/"],
)
def test_the_other_pages_load(staff, two_pending, page):
    assert staff.get(page).status_code == 200


def test_the_policy_form_refuses_unknown_risk_levels(staff, tenant, other_tenant):
    response = staff.post(
        "/admin/toolhub/approvalpolicy/add/",
        {
            "tenant": str(other_tenant.id),
            "gated_risk_levels": '["scary"]',
            "always_gate": "[]",
            "never_gate": "[]",
        },
    )
    assert response.status_code == 200 and not ApprovalPolicy.objects.filter(tenant=other_tenant).exists()
