"""The dashboard and a sync configuration's page in a real browser, as a tenant admin with some of
everything; the screenshots are the ones docs/operations.md shows (copied to docs/images/)."""

from __future__ import annotations

import pytest

from core.models import Role
from ingestion.models import SyncConfiguration
from tests import factories
from tests.browser import console_login, needs_chromium, screenshot
from tests.ops.dashboard_data import EXPECTED, seed_dashboard

pytestmark = [needs_chromium, pytest.mark.django_db(transaction=True)]


def test_a_tenant_admin_reads_the_dashboard_and_a_configuration(
    browser, live_server, tenant, other_tenant, settings
):
    settings.RATE_LIMIT_PER_KEY = "50/m"
    seed_dashboard(tenant, key_calls=42)
    seed_dashboard(other_tenant)
    factories.make_user(tenant, [Role.TENANT_ADMIN], username="ops-admin", is_staff=True)
    page = console_login(browser, live_server, "ops-admin", factories.PASSWORD)
    page.wait_for_selector("#console-dashboard svg.chart")
    text = page.inner_text("#console-dashboard")
    assert EXPECTED["approvals"] in text and EXPECTED["runs"] in text and "globex" not in text
    screenshot(page, "dashboard")

    configuration = SyncConfiguration.objects.get(name="acme handbook")
    page.goto(f"{live_server.url}/admin/ingestion/syncconfiguration/{configuration.pk}/change/")
    page.click("text=Sync now")
    page.wait_for_selector(".messagelist")
    assert "queued" in page.inner_text(".messagelist")
    screenshot(page, "ingestion")
