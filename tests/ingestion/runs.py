"""Watching runs from a test the way a user would: through the status endpoints, once the worker
says it finished the run's task."""

from __future__ import annotations

import queue
import time

import pytest
from celery.signals import task_postrun

STATUS_PATHS = {
    "sitelib": "/v2/sitelib/status",
    "wikispace": "/v2/wikispace/status",
    "itsmplatform": "/v2/itsmplatform/kb-status",
}


@pytest.fixture
def finished_runs():
    """The run ids whose task the worker has finished (not a retry), as it finishes them. Tests
    wait on this instead of polling the status endpoint while the worker writes: the embedded
    SQLite test database is in memory, where a read and a write at the same moment collide."""
    finished: queue.Queue[str] = queue.Queue()

    def note(sender=None, args=None, state=None, **kwargs):
        if sender is not None and sender.name == "ingestion.tasks.sync_run_execute" and state != "RETRY":
            finished.put(args[0])

    task_postrun.connect(note, weak=False)
    yield finished
    task_postrun.disconnect(note)


def wait_for_run(api, finished_runs, run_id: str, platform: str = "sitelib", seconds: float = 180.0) -> dict:
    """The run as its platform's status endpoint shows it, once the worker finished it."""
    deadline = time.monotonic() + seconds
    while finished_runs.get(timeout=max(0.1, deadline - time.monotonic())) != run_id[4:]:
        pass
    response = api.get(f"{STATUS_PATHS[platform]}?sync_run_id={run_id}")
    assert response.status_code == 200, response.json()
    return response.json()["data"]["runs"][0]


def counted(run: dict) -> dict:
    return {k: run[k] for k in ("discovered", "processed", "succeeded", "skipped", "failed")}


def search_titles(api, tenant, words: str, *, top_k: int = 1, **extra) -> list[str]:
    """The titles of the results of POST /v2/knowledge/search for `words`."""
    body = {
        "query": words,
        "vectordb_config": {"platform_domain": "acme.example.com", "tenant_id": str(tenant.id)},
        "top_k": top_k,
        **extra,
    }
    response = api.post("/v2/knowledge/search", body, format="json")
    assert response.status_code == 200, response.json()
    return [result["title"] for result in response.json()["data"]["results"]]
