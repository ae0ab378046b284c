"""The console in a real browser, as its users meet it: an approver approves one call and rejects
another (with a reason) on their pages, and the API sees both decisions; an auditor filters the
audit trail, opens an entry with its chain position and verification, and finds approvals they
may read but not decide; a viewer gets no console at all. Screenshots (1400 px wide) go to
var/screenshots/."""

from __future__ import annotations

import pytest
import requests

from identity.services.users import tenant_user_create
from tests import factories
from tests.browser import console_login, needs_chromium, screenshot
from tests.conftest import jwt_for
from tests.toolhub.support import EXEC_URL
from toolhub.models import Approval, ApprovalPolicy

ORG_LIST = EXEC_URL.format("itdocs.organization.list")
QUEUE = "/admin/toolhub/approval/"

pytestmark = [needs_chromium, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def three_pending(live_server, tenant, exec_key, itdocs_connection):
    ApprovalPolicy.objects.create(tenant=tenant, gated_risk_levels=[], always_gate=["itdocs.*"])
    headers = {"Authorization": f"Bearer {exec_key}", "x-tenantid": str(tenant.id)}
    for key, name in [("ticket-7", "Acme Corp"), ("ticket-8", "Globex"), ("ticket-9", "Initech")]:
        body = {"input": {"name": name}, "idempotency_key": key}
        gate = requests.post(live_server.url + ORG_LIST, json=body, headers=headers, timeout=10)
        assert gate.status_code == 202, gate.text
    return [Approval.objects.get(idempotency_key=key) for key in ("ticket-7", "ticket-8", "ticket-9")]


def decide_on_the_page(page, live_server, approval: Approval, *, reason: str = "") -> str:
    page.goto(f"{live_server.url}{QUEUE}{approval.id}/change/")
    if reason:
        page.fill("#id_reason", reason)
        page.click("button[name=reject]")
    else:
        page.click("button[name=approve]")
    page.wait_for_selector(".messagelist")
    return page.inner_text(".messagelist")


def test_an_approver_decides_on_the_approval_pages_and_the_api_sees_it(
    browser, live_server, tenant, three_pending
):
    approver = tenant_user_create(
        tenant=tenant, username="demo-approver", password=factories.PASSWORD, roles=["approver"]
    )
    first, second, _ = three_pending
    page = console_login(browser, live_server, "demo-approver", factories.PASSWORD, QUEUE)
    rows = page.inner_text("#result_list tbody")
    assert "itdocs.organization.list" in rows and "agent (API key)" in rows

    page.goto(f"{live_server.url}{QUEUE}{first.id}/change/")
    assert "Acme Corp" in page.inner_text(".console-json")
    assert page.is_visible("button[name=approve]") and page.is_visible("button[name=reject]")
    assert page.locator("input[name=_save]").count() == 0
    screenshot(page, "approval-detail")

    assert "approved" in decide_on_the_page(page, live_server, first)
    assert "rejected" in decide_on_the_page(page, live_server, second, reason="Globex is frozen")
    assert "Globex is frozen" in page.inner_text(".console-facts:last-of-type")
    page.goto(f"{live_server.url}{QUEUE}")
    rows = page.locator("#result_list tbody tr")
    assert [rows.nth(i).locator("td.field-state").inner_text() for i in range(3)] == [
        "pending",
        "rejected",
        "approved",
    ]
    assert "demo-approver (user)" in rows.nth(1).inner_text()
    screenshot(page, "approval-queue")

    api = {"Authorization": f"Bearer {jwt_for(approver)}", "x-tenantid": str(tenant.id)}
    seen = {}
    for approval in (first, second):
        url = f"{live_server.url}/api/v1/approvals/{approval.public_id}"
        seen[approval.idempotency_key] = requests.get(url, headers=api, timeout=10).json()["data"]
    assert (
        seen["ticket-7"]["status"] == "approved" and seen["ticket-7"]["decided_by"]["name"] == "demo-approver"
    )
    assert (seen["ticket-8"]["status"], seen["ticket-8"]["reason"]) == ("rejected", "Globex is frozen")
    assert seen["ticket-8"]["decided_by"]["id"] == str(approver.id)


def test_an_auditor_filters_the_trail_opens_an_entry_and_cannot_decide(
    browser, live_server, tenant, three_pending
):
    tenant_user_create(
        tenant=tenant, username="demo-auditor", password=factories.PASSWORD, roles=["audit_viewer"]
    )
    page = console_login(browser, live_server, "demo-auditor", factories.PASSWORD, "/admin/core/auditentry/")
    page.click("details[data-filter-title=action] >> text=APPROVAL_REQUESTED")
    page.wait_for_load_state()
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 3
    assert "agent (API key)" in rows.first.inner_text() and "approval: itdocs" in rows.first.inner_text()
    heights = {round(rows.nth(i).bounding_box()["height"]) for i in range(rows.count())}
    assert max(heights) < 40, heights  # one line per entry
    screenshot(page, "audit-browser")

    rows.first.locator("a").first.click()
    page.wait_for_load_state()
    body = page.inner_text("#content-main")
    assert "Intact: this entry's hash matches" in body and "previous hash" in body.lower()
    assert page.locator("input[name=_save]").count() == 0
    screenshot(page, "audit-entry")

    first, *_ = three_pending
    page.goto(f"{live_server.url}{QUEUE}")
    assert (
        page.locator("input.action-select").count() == 0 and page.locator("select[name=action]").count() == 0
    )
    page.goto(f"{live_server.url}{QUEUE}{first.id}/change/")
    assert "Acme Corp" in page.inner_text(".console-json")
    assert page.locator("button[name=approve], button[name=reject]").count() == 0


def test_a_viewer_gets_no_console_and_no_approval_actions(browser, live_server, tenant, three_pending):
    tenant_user_create(
        tenant=tenant, username="demo-viewer", password=factories.PASSWORD, roles=["integration_viewer"]
    )
    page = console_login(browser, live_server, "demo-viewer", factories.PASSWORD, QUEUE)
    assert page.url.startswith(f"{live_server.url}/admin/login/")
    assert "staff account" in page.inner_text(".errornote")
    first, *_ = three_pending
    page.goto(f"{live_server.url}{QUEUE}{first.id}/change/")
    assert page.url.startswith(f"{live_server.url}/admin/login/")
    assert page.locator("button[name=approve], button[name=reject], select[name=action]").count() == 0
    assert Approval.objects.filter(status="pending").count() == 3
