"""The Celery app, configured from the CELERY_* settings (Redis when configured, else a filesystem
broker under var/). Tasks are acknowledged late and receive ids, never secrets."""

from __future__ import annotations

import os

from celery import Celery
from celery.signals import worker_process_init
from django.core.cache import cache

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("integration_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="ops.touch", ignore_result=True)
def touch(counter_key: str) -> None:
    """A trivial task: one cache increment. The load harness queues many to measure the queue."""
    cache.incr(counter_key)


@app.on_after_finalize.connect
def _schedule_jobs(sender, **kwargs):
    # Imported here: this module loads with the settings, before Django's app registry is ready.
    from core.jobs import beat_schedule

    sender.conf.beat_schedule = beat_schedule()


@worker_process_init.connect
def _embedding_model_load(**kwargs):
    """Each worker process (after the fork) loads the embedding model in the background."""
    from knowledge.embeddings import embedding_model_warm_up

    embedding_model_warm_up()
