"""reportGeneration: a usage report per tenant and month, downloaded by operators in the console."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from core.models import JobRun
from core.tasks import run_job
from ops.models import UsageReport
from ops.reports import month_start, usage_reports_generate
from tests import factories
from tests.helpers import assert_ok
from tests.toolhub.support import make_credential
from toolhub.models import ExecutionRecord

pytestmark = pytest.mark.django_db

SECRET_TOKEN = "tok-very-secret-123456789"


def tool_calls(tenant, *outcomes):
    for outcome in outcomes:
        ExecutionRecord.objects.create(
            tenant=tenant, principal_key="k", tool_key="itdocs.item.get", outcome=outcome, http_status=200
        )


def test_the_job_writes_each_tenants_report_without_a_secret(tenant, other_tenant, client_for):
    _, raw = factories.make_api_key(tenant, name="ops")
    assert_ok(client_for(raw, tenant).get("/api/v1/api-keys"))
    make_credential(tenant, "itsm-prod", access_token=SECRET_TOKEN, secrets={"apiSecret": SECRET_TOKEN})
    tool_calls(tenant, "success", "success", "error", "replayed")
    tool_calls(other_tenant, "success")
    run = JobRun.objects.create(job_name="reportGeneration")
    run_job.apply(args=[str(run.id)])
    run.refresh_from_db()
    assert run.status == JobRun.Status.SUCCEEDED and run.items >= 2
    report = UsageReport.objects.get(tenant=tenant, period_start=month_start(timezone.now()))
    content = report.content
    assert content["tenantId"] == str(tenant.id) and content["period"]["complete"] is False
    assert content["credentials"]["total"] == 1 and content["credentials"]["byAuthType"] == {"api_key": 1}
    assert content["toolCalls"]["total"] == 4
    assert content["toolCalls"]["byOutcome"] == {
        "success": 2, "error": 1, "approval_required": 0, "dry_run": 0, "replayed": 1,
    }  # fmt: skip
    [listed] = content["apiKeys"]["keys"]
    assert listed["name"] == "ops" and listed["calls"] == 1 and listed["successfulCalls"] == 1
    assert content["apiKeys"]["apiCallsInPeriod"] == 1
    assert content["failedFiles"]["total"] == 0
    text = json.dumps(content)
    assert SECRET_TOKEN not in text and raw not in text
    assert UsageReport.objects.get(tenant=other_tenant).content["toolCalls"]["total"] == 1


def test_running_twice_replaces_the_months_report(tenant):
    usage_reports_generate()
    first = UsageReport.objects.get(tenant=tenant)
    tool_calls(tenant, "success")
    usage_reports_generate()
    again = UsageReport.objects.get(tenant=tenant)  # still one
    assert again.id == first.id and again.content["toolCalls"]["total"] == 1


def test_a_month_that_has_ended_gets_its_complete_report_once(tenant):
    tenant.created_at = datetime(2026, 1, 20, tzinfo=UTC)
    tenant.save()
    during = datetime(2026, 3, 31, 23, 0, tzinfo=UTC)
    assert usage_reports_generate(now=during) == 2  # February (complete) and March so far
    after = datetime(2026, 4, 2, tzinfo=UTC)
    assert usage_reports_generate(now=after) == 2  # March closed, April so far
    assert usage_reports_generate(now=after + timedelta(days=1)) == 1  # April only
    months = UsageReport.objects.filter(tenant=tenant).order_by("period_start")
    assert [(r.period_start.month, r.complete) for r in months] == [(2, True), (3, True), (4, False)]
    march = months[1].content["period"]
    assert march == {"from": "2026-03-01T00:00:00.000Z", "to": "2026-04-01T00:00:00.000Z", "complete": True}


def test_the_job_is_triggered_through_the_api(client_for, tenant):
    root = factories.make_super_admin(username="root")
    data = assert_ok(
        client_for(root, tenant).post(
            "/api/v1/admin/jobs/trigger", {"jobName": "reportGeneration"}, format="json"
        )
    )
    assert data["jobName"] == "reportGeneration" and data["status"] == "queued"


@pytest.fixture
def reports(tenant, other_tenant):
    usage_reports_generate()
    return UsageReport.objects.get(tenant=tenant), UsageReport.objects.get(tenant=other_tenant)


def console_for(client, user):
    client.force_login(user)
    return client


def test_a_superuser_lists_and_downloads_every_report(client, reports):
    console = console_for(client, factories.make_super_admin(username="root"))
    listing = console.get("/admin/ops/usagereport/").content.decode()
    ours, theirs = reports
    assert f"/admin/ops/usagereport/{ours.id}/download/" in listing
    assert f"/admin/ops/usagereport/{theirs.id}/download/" in listing
    response = console.get(f"/admin/ops/usagereport/{theirs.id}/download/")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith('attachment; filename="usage-globex-')
    assert json.loads(response.content)["tenantName"] == "globex"


def test_a_tenant_admin_sees_only_their_tenants_reports(client, tenant, reports):
    admin_user = factories.make_user(tenant, ["tenant_admin"], username="boss", is_staff=True)
    console = console_for(client, admin_user)
    ours, theirs = reports
    listing = console.get("/admin/ops/usagereport/")
    assert listing.status_code == 200
    assert str(ours.id) in listing.content.decode() and str(theirs.id) not in listing.content.decode()
    assert console.get(f"/admin/ops/usagereport/{ours.id}/download/").status_code == 200
    assert console.get(f"/admin/ops/usagereport/{theirs.id}/download/").status_code == 404


def test_other_console_users_see_no_report(client, tenant, reports):
    viewer = factories.make_user(tenant, ["integration_admin", "audit_viewer"], username="ops", is_staff=True)
    console = console_for(client, viewer)
    ours, _ = reports
    assert console.get("/admin/ops/usagereport/").status_code == 403
    assert console.get(f"/admin/ops/usagereport/{ours.id}/download/").status_code == 404
