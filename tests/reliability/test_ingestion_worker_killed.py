"""A Celery worker SIGKILLed in the middle of an ingestion run (DESIGN sections 12 and 15): a real
`celery -A config worker` on a private Redis broker and the stack's PostgreSQL database, ingesting
a site of the fake document-site platform. The task is acknowledged late, so the killed worker's
message comes back after the broker's visibility timeout (5 s here); the next worker takes the run
over once the dead one's lease has expired (3 s here) and passes over the items already done. The
run ends with every document once and no duplicate chunk, and the next run finds nothing to do."""

from __future__ import annotations

import contextlib
import subprocess
import time

import psycopg
import pytest
import requests

from tests.fakes.graph import FakeGraph
from tests.fakes.identity import FakeIdentity
from tests.live import BIN, ROOT
from tests.reliability.support import kill_group, wait_until
from tests.security.reports import record
from tests.security.stack import live_stack, services_run

pytestmark = pytest.mark.services

CLOUD_TID = "4f6a1c2e-8d3b-4e7a-9c1f-2b5d7e9a0c13"
CLIENT_ID = "7d1e5b3a-0c2f-4a6e-8b9d-1f3c5e7a9b20"
SECRET = "ingestion-canary-secret-7f3a"
DOMAIN = "acme.example.com"
FILES = 40
STALL_S = 0.25  # each download waits this long: the run lasts long enough to be killed in the middle
VISIBILITY_TIMEOUT = 5
LEASE_S = 3


@pytest.fixture
def platforms():
    with FakeIdentity() as identity, FakeGraph(tokens=identity.issued) as graph:
        identity.add_secret_app(CLOUD_TID, CLIENT_ID, SECRET)
        site = graph.add_site("/sites/handbook", "Handbook")
        drive = graph.add_drive(site, "Documents")
        for n in range(FILES):
            text = f"Policy {n}: rule{n} applies to every office. " * 20
            graph.add_file(drive, f"policy-{n:02d}.txt", text.encode(), stall=STALL_S)
        yield identity, graph, site


@pytest.fixture
def stack(private_redis, platforms, tmp_path):
    if not services_run():
        pytest.skip("needs the services run")
    identity, graph, _ = platforms
    with live_stack(
        tmp_path,
        CELERY_BROKER_URL=private_redis.url(2),
        CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
        OUTBOUND_ALLOW_PRIVATE_NETWORKS="true",
        OUTBOUND_CA_BUNDLE=identity.ca_file,
        SITELIB_LOGIN_URL=identity.url,
        SITELIB_GRAPH_URL=graph.api_url,
        EMBEDDING_BACKEND="hash",
        INGEST_RUN_LEASE_S=str(LEASE_S),
        INGEST_EMBED_BATCH="1",
    ) as stack:
        yield stack


def _worker(env: dict, log) -> subprocess.Popen:
    return subprocess.Popen(
        [str(BIN / "celery"), "-A", "config", "worker", "--concurrency", "1", "--loglevel", "INFO"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the SIGKILL takes the pool child too
    )


def _api(stack, method: str, path: str, **kwargs) -> dict:
    persona = stack.personas["acme-key"]
    response = requests.request(method, stack.base + path, headers=persona.headers(), timeout=30, **kwargs)
    assert response.status_code in (200, 202), (path, response.status_code, response.text)
    return response.json()["data"]


def _run(stack, run_id: str) -> dict:
    return _api(stack, "GET", f"/v2/sitelib/status?sync_run_id={run_id}")["runs"][0]


def _index(database_url: str, run_id: str) -> dict:
    with psycopg.connect(database_url, autocommit=True) as conn:
        documents, chunks, expected = conn.execute(
            "SELECT count(*), (SELECT count(*) FROM knowledge_chunk), coalesce(sum(chunk_count), 0) "
            "FROM knowledge_document"
        ).fetchone()
        distinct = conn.execute(
            "SELECT count(DISTINCT (document_id, ordinal)) FROM knowledge_chunk"
        ).fetchone()[0]
        items, attempts = conn.execute(
            "SELECT (SELECT count(*) FROM ingestion_syncrunitem WHERE run_id = %s), attempts "
            "FROM ingestion_syncrun WHERE id = %s",
            [run_id[4:], run_id[4:]],
        ).fetchone()
    return {
        "documents": documents,
        "chunks": chunks,
        "distinct_chunks": distinct,
        "chunks_expected": expected,
        "items_recorded": items,
        "attempts": attempts,
    }


def test_a_worker_killed_mid_run_loses_and_doubles_nothing(stack, platforms, tmp_path):
    _, _, site = platforms
    tenant_id = stack.personas["acme-key"].tenant_id
    _api(
        stack,
        "POST",
        "/api/v1/credentials",
        json={
            "integrationId": f"sitelib-{DOMAIN}",
            "credentialName": "document sites",
            "authType": "oauth2_client_credentials",
            "metadata": {"cloud_tid": CLOUD_TID, "client_id": CLIENT_ID},
            "secrets": {"client_secret": SECRET},
        },
    )
    upload = {
        "sitelib_auth": False,
        "vectordb_config": {"platform_domain": DOMAIN, "tenant_id": tenant_id},
        "sync_config": {"incremental": False, "processor_mode": "auto", "use_ocr": False},
        "site_urls": [site.web_url],
    }
    started = _api(stack, "POST", "/v2/sitelib/upload", json=upload)
    run_id = started["sync_run_id"]
    log = open(tmp_path / "worker.log", "wb")  # noqa: SIM115
    first = _worker(stack.env, log)
    second = None
    try:
        wait_until(lambda: _run(stack, run_id)["processed"] >= 5, timeout=90, interval=0.1)
        kill_group(first)
        killed_at = time.monotonic()
        at_kill = _run(stack, run_id)
        assert at_kill["status"] == "running" and at_kill["processed"] < FILES, at_kill
        second = _worker(stack.env, log)
        done = wait_until(
            lambda: (r := _run(stack, run_id))["status"] not in ("queued", "running") and r, timeout=120
        )
        resumed_s = time.monotonic() - killed_at
        again = _api(
            stack,
            "POST",
            "/v2/sitelib/ingest",
            json={"sync_configuration_id": started["sync_configuration_id"], "incremental": False},
        )
        next_run = wait_until(
            lambda: (r := _run(stack, again["sync_run_id"]))["status"] not in ("queued", "running") and r,
            timeout=120,
        )
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                kill_group(process)
        log.close()
    index = _index(stack.env["DATABASE_URL"], run_id)
    figures = {
        "files": FILES,
        "processed_when_killed": at_kill["processed"],
        "resumed_and_finished_s": round(resumed_s, 2),
        "visibility_timeout_s": VISIBILITY_TIMEOUT,
        "lease_s": LEASE_S,
        **index,
    }
    record("reliability", "celery_worker_killed_mid_ingestion", figures)
    counted = {k: done[k] for k in ("discovered", "processed", "succeeded", "skipped", "failed")}
    assert done["status"] == "success", (done, figures)
    assert counted == {"discovered": FILES, "processed": FILES, "succeeded": FILES, "skipped": 0, "failed": 0}
    assert index["attempts"] == 2 and index["items_recorded"] == FILES, figures
    assert index["documents"] == FILES, figures
    assert (
        index["chunks"] == index["distinct_chunks"] == index["chunks_expected"] == done["chunks_written"]
    ), figures
    assert (
        next_run["status"] == "success" and next_run["skipped"] == FILES and next_run["chunks_written"] == 0
    )
    assert _index(stack.env["DATABASE_URL"], run_id)["chunks"] == index["chunks"]
    worker_log = (tmp_path / "worker.log").read_bytes()
    assert SECRET.encode() not in worker_log
    with contextlib.suppress(FileNotFoundError):
        assert SECRET.encode() not in stack.log.read_bytes()
