"""The dataSync job: scheduled runs of the configurations that are due, and runs whose worker died
queued again. What it sends crosses the broker as the run's id only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.models import JobRun
from core.tasks import run_job
from ingestion.models import SyncConfiguration, SyncRun

TASK = "ingestion.tasks.sync_run_execute"


def queued_messages() -> list[tuple[str, list]]:
    """(task name, arguments) of every message waiting in the test run's queue, taken off it."""
    from config.celery import app

    found = []
    with app.connection_for_read() as conn:
        queue = conn.SimpleQueue(app.conf.task_default_queue)
        while True:
            try:
                message = queue.get(block=False)
            except queue.Empty:
                break
            found.append((message.headers["task"], list(message.payload[0])))
            message.ack()
        queue.close()
    return found


@pytest.fixture(autouse=True)
def _empty_queue():
    queued_messages()
    yield
    queued_messages()


def configuration(tenant, name: str, **fields) -> SyncConfiguration:
    return SyncConfiguration.objects.create(
        tenant=tenant,
        platform="sitelib",
        name=name,
        integration_id="sitelib-x",
        platform_domain="x",
        **fields,
    )


def past_run(configuration, minutes_ago: int, **fields) -> SyncRun:
    return SyncRun.objects.create(
        configuration=configuration,
        tenant=configuration.tenant,
        job_id="j",
        kind=fields.pop("kind", "ingest"),
        status=fields.pop("status", "success"),
        queued_at=timezone.now() - timedelta(minutes=minutes_ago),
        **fields,
    )


def data_sync() -> JobRun:
    job = JobRun.objects.create(job_name="dataSync")
    run_job.apply(args=[str(job.id)])
    job.refresh_from_db()
    return job


def test_it_queues_a_scheduled_run_of_each_configuration_that_is_due(tenant):
    never_ran = configuration(tenant, "never ran", interval_minutes=60)
    due = configuration(tenant, "due", interval_minutes=5)
    past_run(due, minutes_ago=10)
    not_yet = configuration(tenant, "not yet", interval_minutes=60)
    past_run(not_yet, minutes_ago=10)
    configuration(tenant, "switched off", interval_minutes=5, enabled=False)
    configuration(tenant, "manual", interval_minutes=5, processor_mode="manual")
    configuration(tenant, "no schedule")
    busy = configuration(tenant, "busy", interval_minutes=5)
    past_run(busy, minutes_ago=30, status="running", lease_expires_at=timezone.now() + timedelta(minutes=5))
    job = data_sync()
    assert job.status == "succeeded" and job.items == 2
    scheduled = SyncRun.objects.filter(kind="scheduled")
    assert {run.configuration.name for run in scheduled} == {never_ran.name, due.name}
    assert all(run.incremental and run.status == "queued" for run in scheduled)
    assert sorted(queued_messages()) == sorted((TASK, [str(run.id)]) for run in scheduled)


def test_it_queues_again_a_run_whose_worker_stopped_renewing_its_lease(tenant):
    config = configuration(tenant, "handbook")
    abandoned = past_run(
        config, minutes_ago=30, status="running", lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    other = configuration(tenant, "alive")
    past_run(other, minutes_ago=1, status="running", lease_expires_at=timezone.now() + timedelta(minutes=5))
    job = data_sync()
    assert job.items == 1
    assert queued_messages() == [(TASK, [str(abandoned.id)])]
    assert SyncRun.objects.filter(kind="scheduled").count() == 0


def test_the_retention_job_forgets_the_items_of_old_runs_and_keeps_the_runs(tenant, settings):
    from ingestion.models import SyncRunItem

    settings.FAILED_FILES_RETENTION_DAYS = 10
    config = configuration(tenant, "handbook")
    old = past_run(config, minutes_ago=12 * 24 * 60, finished_at=timezone.now() - timedelta(days=11))
    recent = past_run(config, minutes_ago=60, finished_at=timezone.now() - timedelta(minutes=59))
    for run in (old, recent):
        SyncRunItem.objects.create(run=run, item_key="d/1", name="a.txt", outcome="succeeded")
    job = JobRun.objects.create(job_name="failedFilesRetention")
    run_job.apply(args=[str(job.id)])
    job.refresh_from_db()
    assert job.status == "succeeded" and job.items == 1
    assert list(SyncRunItem.objects.values_list("run_id", flat=True)) == [recent.id]
    assert SyncRun.objects.count() == 2


def permissions_sync() -> JobRun:
    job = JobRun.objects.create(job_name="permissionsSync")
    run_job.apply(args=[str(job.id)])
    job.refresh_from_db()
    return job


def test_permissions_passes_read_readers_again_at_least_every_resync_interval(tenant):
    synced = timezone.now() - timedelta(days=1)
    stale = configuration(tenant, "stale", interval_minutes=60, last_sync=synced)
    past_run(stale, minutes_ago=5, incremental=True)  # an incremental run reads only what changed
    stopped = configuration(tenant, "stopped", enabled=False, last_sync=synced)
    past_run(stopped, minutes_ago=40, incremental=False)  # stopped, its documents still found
    fresh = configuration(tenant, "fresh", last_sync=synced)
    past_run(fresh, minutes_ago=5, kind="permissions")
    short = configuration(tenant, "short schedule", interval_minutes=10, last_sync=synced)
    past_run(short, minutes_ago=12, incremental=False)  # its own schedule is shorter than 15 minutes
    recent = configuration(tenant, "full run just now", last_sync=synced)
    past_run(recent, minutes_ago=3, incremental=False)
    configuration(tenant, "never indexed")
    busy = configuration(tenant, "busy", last_sync=synced)
    past_run(busy, minutes_ago=30, status="running", lease_expires_at=timezone.now() + timedelta(minutes=5))

    job = permissions_sync()
    passes = SyncRun.objects.filter(kind="permissions", status="queued")
    assert job.status == "succeeded" and job.items == 3
    assert {run.configuration.name for run in passes} == {"stale", "stopped", "short schedule"}
    assert all(not run.incremental for run in passes)
    assert sorted(queued_messages()) == sorted((TASK, [str(run.id)]) for run in passes)
    assert permissions_sync().items == 0  # the passes it queued are active now


def test_a_permissions_pass_does_not_put_off_a_scheduled_run(tenant):
    due = configuration(tenant, "due", interval_minutes=5, last_sync=timezone.now())
    past_run(due, minutes_ago=10, kind="scheduled")
    past_run(due, minutes_ago=1, kind="permissions")
    assert data_sync().items == 1
    assert SyncRun.objects.filter(configuration=due, kind="scheduled", status="queued").count() == 1
