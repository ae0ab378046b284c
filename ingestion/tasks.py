"""Thin tasks: ids only in their arguments, acknowledged late (a worker killed mid-run leaves the
message to be delivered again, and the run's lease lets the next attempt take it over)."""

from __future__ import annotations

from celery import shared_task

from ingestion.pipeline.run import sync_run_execute as execute  # imported here: no import cycles


@shared_task(bind=True, acks_late=True, max_retries=20)
def sync_run_execute(self, run_id: str) -> None:
    retry_in = execute(run_id=run_id)
    if retry_in is not None and self.request.retries < self.max_retries:
        raise self.retry(countdown=retry_in)
