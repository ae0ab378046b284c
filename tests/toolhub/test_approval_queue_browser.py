"""The approval queue in a real browser: a staff approver signs in to the Django admin, approves the
pending call from the queue, and the caller's repeat then executes."""

from __future__ import annotations

import pytest
import requests

from identity.services.users import tenant_user_create
from tests import factories
from tests.browser import needs_chromium
from tests.toolhub.support import EXEC_URL
from toolhub.models import Approval, ApprovalPolicy

ORG_LIST = EXEC_URL.format("itdocs.organization.list")

pytestmark = [needs_chromium, pytest.mark.django_db(transaction=True)]


def test_a_staff_approver_approves_from_the_admin_queue_and_the_repeat_runs(
    browser, live_server, tenant, exec_key, itdocs_connection, itdocs_fake
):
    ApprovalPolicy.objects.create(tenant=tenant, gated_risk_levels=[], always_gate=["itdocs.*"])
    # The approver role alone opens the console's queue (staff status follows it).
    tenant_user_create(tenant=tenant, username="alice", password=factories.PASSWORD, roles=["approver"])
    headers = {"Authorization": f"Bearer {exec_key}", "x-tenantid": str(tenant.id)}
    body = {"input": {"name": "Acme Corp"}, "idempotency_key": "ticket-7"}
    gate = requests.post(live_server.url + ORG_LIST, json=body, headers=headers, timeout=10)
    assert gate.status_code == 202 and gate.json()["error"]["code"] == "APPROVAL_REQUIRED"

    page = browser.new_page()
    page.goto(live_server.url + "/admin/login/?next=/admin/toolhub/approval/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", factories.PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#result_list")
    assert "itdocs.organization.list" in page.inner_text("#result_list")
    page.check("#result_list tbody tr:first-child input.action-select")
    page.select_option("select[name=action]", "approve_selected")
    page.click("button[name=index]")
    page.wait_for_selector(".messagelist")
    assert "approved" in page.inner_text(".messagelist")

    assert Approval.objects.get().status == "approved"
    ran = requests.post(live_server.url + ORG_LIST, json=body, headers=headers, timeout=10)
    assert ran.status_code == 200, ran.text
    assert ran.json()["data"]["organizations"][0]["name"] == "Acme Corp"
    assert len(itdocs_fake.requests_to("^/organizations$")) == 1
