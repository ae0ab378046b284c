"""Thin tasks: load by id, call the job service."""

from __future__ import annotations

from celery import shared_task

from core.audit import system_actor
from core.jobs import job_available, job_execute
from core.models import JobRun


@shared_task(bind=True, max_retries=5, acks_late=True)
def run_job(self, run_id: str) -> None:
    run = JobRun.objects.filter(id=run_id).first()
    if run is None:  # queued inside a transaction that has not committed yet: look again shortly
        raise self.retry(countdown=0.5)
    if run.status == JobRun.Status.SUCCEEDED:
        return  # a redelivery of a run that already finished
    job_execute(run)


@shared_task(acks_late=True)
def run_scheduled_job(name: str) -> None:
    if not job_available(name):
        return
    run = JobRun.objects.create(job_name=name, triggered_by=system_actor("beat"))
    job_execute(run)
