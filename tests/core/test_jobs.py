"""Named jobs run through the real broker and leave a record of every run."""

import time
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from core import jobs
from core.api.errors import ServiceUnavailable
from core.audit import system_actor
from core.models import JobRun
from core.tasks import run_job
from identity.models import ApiKey
from tests import factories


def wait_for(predicate, seconds=20.0):
    """Poll until the predicate holds. SQLite's shared-cache test database answers "table is
    locked" at once, without waiting, while a worker thread writes: that is "not yet"."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if predicate():
                return True
        except OperationalError:
            pass
        time.sleep(0.1)
    return False


@pytest.mark.django_db(transaction=True)
def test_a_queued_job_runs_in_a_worker_and_its_run_is_recorded(tenant, celery_worker_thread):
    key, _ = factories.make_api_key(tenant, expires_at=timezone.now() - timedelta(minutes=1))
    run = jobs.job_enqueue(name="cleanupExpiredSessions", triggered_by=system_actor("tests"))
    assert run.status == JobRun.Status.QUEUED
    assert wait_for(lambda: JobRun.objects.get(id=run.id).status == JobRun.Status.SUCCEEDED)
    run.refresh_from_db()
    assert run.items == 1 and run.outcome == "ok" and run.attempts == 1
    assert run.queued_at <= run.started_at <= run.finished_at and run.duration_ms >= 0
    assert ApiKey.objects.get(id=key.id).status == ApiKey.Status.EXPIRED


@pytest.mark.django_db
def test_a_failing_job_is_recorded_as_failed(monkeypatch):
    def explode(run):
        raise RuntimeError("the report store is full")

    monkeypatch.setitem(jobs._IMPLEMENTATIONS, "reportGeneration", [explode])
    run = JobRun.objects.create(job_name="reportGeneration")
    run_job.apply(args=[str(run.id)])
    run.refresh_from_db()
    assert run.status == JobRun.Status.FAILED and "report store is full" in run.outcome
    assert run.finished_at is not None


@pytest.mark.django_db
def test_a_redelivered_finished_run_does_not_run_again():
    run = JobRun.objects.create(job_name="cleanupExpiredSessions", status=JobRun.Status.SUCCEEDED, attempts=1)
    run_job.apply(args=[str(run.id)])
    run.refresh_from_db()
    assert run.attempts == 1


@pytest.mark.django_db
def test_when_the_broker_is_down_nothing_is_recorded_and_the_caller_gets_503():
    from config.celery import app

    def point_broker_at(url, transport):  # Celery caches connection and producer pools per app
        app.conf.broker_url, app.conf.broker_transport = url, transport
        app._pool = None
        app.amqp._producer_pool = None

    saved = app.conf.broker_url, app.conf.broker_transport
    point_broker_at("redis://127.0.0.1:1/0", None)
    try:
        with pytest.raises(ServiceUnavailable):
            jobs.job_enqueue(name="cleanupExpiredSessions", triggered_by=system_actor("tests"))
    finally:
        point_broker_at(*saved)
    assert not JobRun.objects.exists()


def test_every_named_job_is_known_and_beat_schedules_the_periodic_ones():
    assert list(jobs.JOB_SPECS)[:6] == [
        "tokenExpiry",
        "credentialRotationCheck",
        "cleanupExpiredSessions",
        "auditLogArchive",
        "dataSync",
        "reportGeneration",
    ]
    schedule = jobs.beat_schedule()
    assert schedule["job:cleanupExpiredSessions"]["args"] == ("cleanupExpiredSessions",)
    assert schedule["job:dataSync"]["args"] == ("dataSync",)


def test_an_implementation_for_an_unknown_job_is_refused():
    with pytest.raises(KeyError):
        jobs.job_implementation("noSuchJob")
