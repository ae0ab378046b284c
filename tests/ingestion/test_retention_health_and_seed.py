"""The failedFilesRetention job, the storage health check and the demo failures."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from core import health, jobs
from core.models import JobRun, Tenant
from core.seeding import SEED_HOOKS
from core.tasks import run_job
from ingestion import health as ingestion_health
from ingestion.seeding import seed_failed_files
from ingestion.selectors import failed_file_list

DEAD_AZURE = (
    "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=c2VjcmV0LWtleQ==;"
    "TableEndpoint=http://127.0.0.1:9/devstoreaccount1;"
)


def test_the_retention_job_deletes_old_records_and_reports_how_many(
    store, settings, tenant, other_tenant, record_failure
):
    settings.FAILED_FILES_RETENTION_DAYS = 10
    record_failure(tenant, "old", hours_ago=11 * 24)
    record_failure(other_tenant, "old", content_type="web_attachment", hours_ago=12 * 24)
    record_failure(tenant, "fresh", hours_ago=9 * 24)
    run = JobRun.objects.create(job_name="failedFilesRetention")
    run_job.apply(args=[str(run.id)])
    run.refresh_from_db()
    assert (run.status, run.items, run.outcome) == (JobRun.Status.SUCCEEDED, 2, "ok")
    settings.FAILED_FILES_RETENTION_DAYS = 100
    assert [r.file_id for r in failed_file_list(tenant=tenant, platform_type="sitelib").items] == ["fresh"]
    assert failed_file_list(tenant=other_tenant, platform_type="web").total == 0


def test_the_retention_job_is_available_and_scheduled_daily():
    assert jobs.job_available("failedFilesRetention")
    assert jobs.beat_schedule()["job:failedFilesRetention"]["args"] == ("failedFilesRetention",)


@pytest.fixture
def checks(monkeypatch):
    """The health registry as ingestion registers into it, restored afterwards."""
    monkeypatch.setattr(health, "_CHECKS", dict(health._CHECKS))
    monkeypatch.setattr(health, "_failing_since", {})
    return health._CHECKS


@pytest.mark.django_db
def test_an_unreachable_azure_table_makes_the_service_degraded_not_unhealthy(settings, checks, client):
    settings.FAILED_FILES_BACKEND = "azure_tables"
    settings.AZURE_TABLES_CONNECTION_STRING = DEAD_AZURE
    ingestion_health.register()
    response = client.get("/api/v1/health")
    body = response.json()
    assert response.status_code == 200 and body["status"] == "degraded"
    assert body["services"]["storage"] == "unhealthy" and body["services"]["database"] == "healthy"


def test_a_reachable_store_is_healthy(store, settings, checks, client):
    ingestion_health.register()
    body = client.get("/api/v1/health").json()
    if settings.FAILED_FILES_BACKEND == "orm":
        # The orm store is the database: its critical check covers it.
        assert "storage" not in body["services"] and body["services"]["database"] == "healthy"
    else:
        assert body["services"]["storage"] == "healthy"


def test_the_demo_failures_show_on_the_listing_and_seeding_again_changes_nothing(store, tenant):
    assert seed_failed_files in SEED_HOOKS
    seed_failed_files(tenant)
    seed_failed_files(tenant)
    sitelib = failed_file_list(tenant=tenant, platform_type="sitelib")
    assert sitelib.total == 2 and {r.retry_count for r in sitelib.items} == {1}
    assert {r.error_type for r in sitelib.items} == {"FILE_TOO_LARGE", "PARSE_ERROR"}
    assert failed_file_list(tenant=tenant, platform_type="wikispace").total == 1


def test_seed_demo_records_failures_for_the_demo_tenant(store):
    call_command("seed_demo", stdout=StringIO(), stderr=StringIO())
    demo = Tenant.objects.get(name="demo")
    assert failed_file_list(tenant=demo, platform_type="sitelib").total == 2
