"""The console's first page: a dashboard of the tenants the signed-in user may see, with the panels
their roles allow, the numbers the rows say, server-drawn charts, and the list of apps below."""

from __future__ import annotations

import html

import pytest

from core.models import Role
from identity.models import Membership
from tests import factories
from tests.ops.dashboard_data import EXPECTED, seed_dashboard

pytestmark = pytest.mark.django_db

TITLES = {
    "approvals": "Approvals waiting",
    "tool_calls": "Tool calls per hour",
    "credentials": "Credentials needing attention",
    "keys": "API keys near their rate limit",
    "runs": "Sync runs (last 7 days)",
    "failed_files": "Failed files by error type",
}


def dashboard_of(client, user, query: str = "") -> str:
    client.force_login(user)
    response = client.get(f"/admin/{query}")
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def panels_in(page: str) -> set[str]:
    return {name for name, title in TITLES.items() if title in page}


def test_a_tenant_admin_sees_every_panel_with_their_tenants_numbers_only(
    client, tenant, other_tenant, settings
):
    settings.RATE_LIMIT_PER_KEY = "10/m"
    seed_dashboard(tenant, key_calls=9)
    seed_dashboard(other_tenant, key_calls=10)
    boss = factories.make_user(tenant, [Role.TENANT_ADMIN], is_staff=True)
    page = dashboard_of(client, boss)
    assert panels_in(page) == set(TITLES)
    for summary in EXPECTED.values():
        assert summary in page
    assert "1 of 1 active keys at 80% or more of 10 calls a minute." in page
    assert "acme-busy-key" in page and "9 / 10" in page
    assert page.count('<svg class="chart"') == 5  # tool calls, credentials, keys, runs, failed files
    assert "globex" not in page  # not its name, its keys, its tools, its files
    assert "/admin/toolhub/approval/?status__exact=pending" in page
    assert "/admin/ingestion/syncrun/?status__exact=failed" in page
    assert "/admin/ingestion/failedfilerow/?error_type__exact=PARSE_ERROR" in page
    assert "Everything in the console" in page and 'href="/admin/ingestion/syncconfiguration/"' in page


@pytest.mark.parametrize(
    ("roles", "panels"),
    [
        ([Role.APPROVER], {"approvals"}),
        ([Role.AUDIT_VIEWER], {"tool_calls"}),
        ([Role.APPROVER, Role.AUDIT_VIEWER], {"approvals", "tool_calls"}),
    ],
)
def test_each_role_sees_the_panels_it_may(client, tenant, roles, panels):
    seed_dashboard(tenant)
    page = dashboard_of(client, factories.make_user(tenant, roles, is_staff=True))
    assert panels_in(page) == panels
    assert "expired" not in page and "PARSE_ERROR" not in page


def test_roles_count_in_their_own_tenant_only(client, tenant, other_tenant):
    """An approver of acme and auditor of globex: acme's approvals, globex's tool calls."""
    seed_dashboard(tenant)
    seed_dashboard(other_tenant)
    user = factories.make_user(tenant, [Role.APPROVER], is_staff=True)
    Membership.objects.create(user=user, tenant=other_tenant, roles=[Role.AUDIT_VIEWER])
    page = dashboard_of(client, user)
    assert EXPECTED["approvals"] in page and EXPECTED["tool_calls"] in page
    assert "itsm.incident.delete" not in page  # approvals are counted per tenant, not listed
    assert "acme" in page and "globex" in page  # both are in the tenant picker


def test_a_superuser_sees_every_tenant_and_can_narrow_to_one(client, tenant, other_tenant):
    seed_dashboard(tenant)
    seed_dashboard(other_tenant)
    root = factories.make_super_admin(username="root")
    everything = dashboard_of(client, root)
    assert "4 tool calls waiting for an approver" in everything
    assert "10 calls: 6 succeeded, 2 failed." in everything
    one = dashboard_of(client, root, f"?tenant={other_tenant.id}")
    assert EXPECTED["approvals"] in one and EXPECTED["runs"] in one


def test_naming_another_tenant_in_the_url_shows_only_ones_own(client, tenant, other_tenant):
    seed_dashboard(other_tenant)
    boss = factories.make_user(tenant, [Role.TENANT_ADMIN], is_staff=True)
    page = dashboard_of(client, boss, f"?tenant={other_tenant.id}")
    assert "0 tool calls waiting" in page and "globex" not in page
    assert dashboard_of(client, boss, "?tenant=not-a-uuid").count("0 runs") == 1


def test_the_dashboard_works_with_no_data(client, db):
    page = dashboard_of(client, factories.make_super_admin(username="root"))
    for sentence in [
        "No call is waiting for a decision.",
        "No tool call in the last 24 hours.",
        "Every active credential is valid for at least 7 more days.",
        "No key has made calls this hour.",
        "No sync run in the last 7 days.",
        "No file failed to ingest.",
    ]:
        assert sentence in page


def test_the_dashboard_reads_a_bounded_number_of_queries(
    client, tenant, other_tenant, django_assert_max_num_queries
):
    seed_dashboard(tenant, key_calls=3)
    seed_dashboard(other_tenant, key_calls=3)
    boss = factories.make_user(tenant, [Role.TENANT_ADMIN], is_staff=True)
    client.force_login(boss)
    # session, user, the user's Django permissions (2), memberships, tenant names, one a panel (6):
    # the same however many rows the tenants have
    with django_assert_max_num_queries(12):
        assert client.get("/admin/").status_code == 200
    client.force_login(factories.make_super_admin(username="root"))
    with django_assert_max_num_queries(9):
        assert client.get("/admin/").status_code == 200


def test_no_secret_reaches_the_dashboard_or_the_ingestion_pages(client, tenant):
    from core.audit import system_actor
    from ingestion.models import SyncConfiguration, SyncRun
    from vault.models import Credential
    from vault.services.credentials import credential_store

    canary = "cnry-console-5e1b9d7f3a"
    credential_store(
        tenant=tenant,
        actor=system_actor("tests"),
        integration_id="wiki-canary",
        name="wiki",
        auth_type="oauth2_bearer",
        access_token=canary,
        refresh_token=canary + "-r",
        secrets={"client_secret": canary},
        expires_in=3600,
    )
    Credential.objects.filter(integration_id="wiki-canary").update(refresh_error={"code": "invalid_grant"})
    configuration = SyncConfiguration.objects.create(
        tenant=tenant, platform="wikispace", name="wiki", integration_id="wiki-canary", platform_domain="w"
    )
    run = SyncRun.objects.create(configuration=configuration, tenant=tenant, job_id="j", kind="ingest")
    client.force_login(factories.make_user(tenant, [Role.TENANT_ADMIN], is_staff=True))
    pages = [
        "/admin/",
        "/admin/ingestion/syncconfiguration/",
        f"/admin/ingestion/syncconfiguration/{configuration.pk}/change/",
        "/admin/ingestion/syncrun/",
        f"/admin/ingestion/syncrun/{run.pk}/change/",
        "/admin/ingestion/failedfilerow/",
    ]
    for path in pages:
        response = client.get(path)
        assert response.status_code == 200 and canary not in response.content.decode(), path
