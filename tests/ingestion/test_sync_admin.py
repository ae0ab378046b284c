"""The console's ingestion pages: configurations with "Sync now", runs with their counters and failed
items, "Stop run"; a tenant admin sees and acts on their own tenants' rows only."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from core.models import AuditEntry, Role
from ingestion.models import SyncConfiguration, SyncRun, SyncRunItem
from tests import factories

CONFIGURATIONS = "/admin/ingestion/syncconfiguration/"
RUNS = "/admin/ingestion/syncrun/"


@pytest.fixture(autouse=True)
def _drop_queued_messages():
    yield
    from config.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(app.conf.task_default_queue)


def make_configuration(tenant, name="handbook") -> SyncConfiguration:
    return SyncConfiguration.objects.create(
        tenant=tenant, platform="sitelib", name=name, integration_id="sitelib-x", platform_domain="x.test"
    )


def make_run(configuration, **fields) -> SyncRun:
    return SyncRun.objects.create(
        configuration=configuration, tenant=configuration.tenant, job_id="job-1", kind="ingest", **fields
    )


@pytest.fixture
def root(client, db):
    client.force_login(factories.make_super_admin(username="root"))
    return client


@pytest.fixture
def tenant_admin(client, tenant):
    client.force_login(factories.make_user(tenant, [Role.TENANT_ADMIN], username="boss", is_staff=True))
    return client


def act(client, url, action, *objects):
    return client.post(url, {"action": action, "_selected_action": [str(o.pk) for o in objects]}, follow=True)


def test_sync_now_queues_an_incremental_run(root, tenant):
    configuration = make_configuration(tenant)
    page = act(root, CONFIGURATIONS, "sync_now", configuration).content.decode()
    run = SyncRun.objects.get()
    assert (run.kind, run.status, run.incremental) == ("ingest", "queued", True)
    assert run.public_id in page
    assert AuditEntry.objects.filter(action="SYNC_RUN_QUEUED", tenant_id=tenant.id).count() == 1


def test_sync_now_while_a_run_is_active_says_so_and_queues_nothing(root, tenant):
    configuration = make_configuration(tenant)
    running = make_run(configuration, status="running")
    page = act(root, CONFIGURATIONS, "sync_now", configuration).content.decode()
    assert "already queued or running" in page and running.public_id in page
    assert SyncRun.objects.count() == 1


def test_stop_run_ends_a_queued_run_at_once(root, tenant):
    run = make_run(make_configuration(tenant))
    act(root, RUNS, "stop_runs", run)
    run.refresh_from_db()
    assert run.status == "stopped" and run.finished_at and run.error
    assert AuditEntry.objects.filter(action="SYNC_RUN_STOP_REQUESTED").count() == 1


def test_stop_run_asks_a_running_run_to_stop_at_its_next_document(root, tenant):
    lease = timezone.now() + timedelta(minutes=5)
    run = make_run(make_configuration(tenant), status="running", lease_holder="w1", lease_expires_at=lease)
    page = act(root, RUNS, "stop_runs", run).content.decode()
    run.refresh_from_db()
    assert run.status == "running" and run.stop_requested is True
    assert "next document" in page


def test_stop_run_leaves_a_finished_run_alone(root, tenant):
    run = make_run(make_configuration(tenant), status="success")
    act(root, RUNS, "stop_runs", run)
    run.refresh_from_db()
    assert run.status == "success" and run.stop_requested is False


def test_a_run_page_shows_its_counters_and_failed_items(root, tenant):
    run = make_run(
        make_configuration(tenant), status="partial", discovered=3, processed=3, succeeded=2, failed=1
    )
    SyncRunItem.objects.create(
        run=run,
        item_key="d/1",
        name="scan.png",
        outcome="failed",
        error_type="OCR_FAILED",
        error_message="no OCR",
    )
    page = root.get(f"{RUNS}{run.pk}/change/").content.decode()
    assert "OCR_FAILED" in page and "scan.png" in page and "no OCR" in page
    assert root.get(RUNS).status_code == 200


def test_a_tenant_admin_sees_and_stops_only_their_tenants_runs(tenant_admin, tenant, other_tenant):
    mine = make_run(make_configuration(tenant, "mine"))
    theirs = make_run(make_configuration(other_tenant, "theirs"))
    listing = tenant_admin.get(RUNS).content.decode()
    assert mine.public_id in listing and theirs.public_id not in listing
    assert "theirs" not in tenant_admin.get(CONFIGURATIONS).content.decode()
    act(tenant_admin, RUNS, "stop_runs", mine, theirs)
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert mine.status == "stopped" and theirs.status == "queued"


def test_nobody_adds_or_edits_runs_in_the_console(root, tenant):
    run = make_run(make_configuration(tenant))
    assert root.get(f"{RUNS}add/").status_code == 403
    root.post(f"{RUNS}{run.pk}/change/", {"status": "success"})
    run.refresh_from_db()
    assert run.status == "queued"


FAILED_FILES = "/admin/ingestion/failedfilerow/"


def test_a_configuration_page_has_sync_now_and_stop_buttons_that_use_the_services(tenant_admin, tenant):
    configuration = make_configuration(tenant)
    page = tenant_admin.get(f"{CONFIGURATIONS}{configuration.pk}/change/").content.decode()
    assert "Sync now" in page and "Stop sync" in page and "Everything the credential can read" in page
    queued = tenant_admin.post(f"{CONFIGURATIONS}{configuration.pk}/sync-now/", follow=True).content.decode()
    run = SyncRun.objects.get()
    assert (run.kind, run.status, run.incremental) == ("ingest", "queued", True)
    assert f"run {run.public_id} queued" in queued and "Queued" in queued  # the recent runs table
    assert run.triggered_by["name"] == "boss"
    tenant_admin.post(f"{CONFIGURATIONS}{configuration.pk}/stop/")
    configuration.refresh_from_db()
    run.refresh_from_db()
    assert configuration.enabled is False and run.status == "stopped"
    assert AuditEntry.objects.filter(action="SYNC_CONFIGURATION_STOPPED", tenant_id=tenant.id).count() == 1
    assert "Stop sync" not in tenant_admin.get(f"{CONFIGURATIONS}{configuration.pk}/change/").content.decode()
    assert tenant_admin.get(f"{CONFIGURATIONS}{configuration.pk}/sync-now/").status_code == 405


def test_another_tenants_configuration_has_no_buttons_for_a_tenant_admin(tenant_admin, other_tenant):
    theirs = make_configuration(other_tenant, "theirs")
    for button in ("sync-now", "stop"):
        assert tenant_admin.post(f"{CONFIGURATIONS}{theirs.pk}/{button}/").status_code in (302, 404)
    theirs.refresh_from_db()
    assert SyncRun.objects.count() == 0 and theirs.enabled is True


def test_the_lists_read_as_words_not_json(root, tenant):
    configuration = make_configuration(tenant)
    run = make_run(
        configuration,
        status="failed",
        error="The credential was refused.",
        triggered_by={"type": "user", "id": "u1", "name": "Ann", "email": "ann@acme.test"},
    )
    listing = root.get(CONFIGURATIONS).content.decode()
    assert "✗ Failed" in listing and "On request" in listing
    page = root.get(f"{RUNS}{run.pk}/change/").content.decode()
    assert "Ann &lt;ann@acme.test&gt; (user)" in page and "The credential was refused." in page
    assert '"email"' not in page and "&quot;email&quot;" not in page


def test_retrying_failed_files_queues_a_retry_run_as_the_api_does(tenant_admin, tenant, other_tenant):
    from ingestion.models import FailedFileRow
    from ingestion.services.failed_files import failed_file_record

    configuration = make_configuration(tenant)
    earlier = make_run(configuration, status="partial", failed=1)
    SyncRunItem.objects.create(
        run=earlier,
        item_key="d/1",
        content_type="sitelib_attachment",
        outcome="failed",
        error_type="PARSE_ERROR",
    )
    for owner, file_id in [(tenant, "d/1"), (other_tenant, "d/9")]:
        failed_file_record(
            tenant=owner,
            platform_domain="x.test",
            content_type="sitelib_attachment",
            file_id=file_id,
            file_name=f"{owner.name}.pdf",
            source_url="https://x.test/f.pdf",
            error_type="PARSE_ERROR",
            error_message="bad",
            failed_at=timezone.now(),
        )
    listing = tenant_admin.get(FAILED_FILES).content.decode()
    assert "acme.pdf" in listing and "globex.pdf" not in listing and "sitelib attachment" in listing
    mine = FailedFileRow.objects.get(file_id="d/1")
    page = act(tenant_admin, FAILED_FILES, "retry_files", mine, FailedFileRow.objects.get(file_id="d/9"))
    retry = SyncRun.objects.get(kind="retry")
    assert retry.retry_items == {"d/1": "sitelib_attachment"} and retry.configuration == configuration
    assert f"1 queued for another attempt in {retry.public_id}" in page.content.decode()
    assert tenant_admin.get(f"{FAILED_FILES}{mine.pk}/change/").status_code == 200
    theirs = FailedFileRow.objects.get(file_id="d/9")
    assert tenant_admin.get(f"{FAILED_FILES}{theirs.pk}/change/").status_code in (302, 403, 404)


def test_a_configurations_recent_runs_say_what_was_skipped(tenant_admin, tenant):
    configuration = make_configuration(tenant)
    SyncRun.objects.create(
        configuration=configuration, tenant=tenant, job_id="j", kind="ingest", status="partial",
        succeeded=3, skipped=4, failed=2,
    )  # fmt: skip
    page = tenant_admin.get(f"{CONFIGURATIONS}{configuration.pk}/change/").content.decode()
    table = re.search(r"<table><tr><th>Queued</th>.*?</table>", page, re.S).group(0)
    assert "<th>Skipped</th>" in table and "<td>4</td>" in table
