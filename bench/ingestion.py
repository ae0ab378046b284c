"""Ingestion throughput for the harness (bench/run): a site of text files on the fake document-site
platform ingested end to end by the service's Celery worker (upload through the API, download,
extraction, chunking, embedding with the configured model, the vector store), in chunks/s, beside
the raw throughput of the same model on the same chunks measured in the same run (floor >= 0.7x),
and the worker's peak RSS while it ingested.

The harness calls `ingestion_figures` (no Django in its process); the raw figure comes from
`python -m bench.ingestion raw`, which runs the pipeline's own chunker and embedder on the same
texts in the bench environment and prints JSON.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import requests

FILES = 20
WORDS = 4000  # about 25 chunks of 200 word pieces a file
WARM_UPS = 2  # tiny runs first, one per worker process, so that no measured run loads the model
DOMAIN = "ingest.bench.test"
_VOCABULARY = [
    "policy",
    "travel",
    "expense",
    "receipt",
    "approval",
    "manager",
    "budget",
    "quarter",
    "office",
    "laptop",
    "security",
    "password",
    "network",
    "printer",
    "invoice",
    "contract",
    "supplier",
    "holiday",
    "leave",
    "training",
    "onboarding",
    "badge",
    "parking",
    "meeting",
    "agenda",
    "report",
    "review",
    "project",
    "deadline",
    "customer",
    "support",
    "ticket",
    "incident",
    "change",
    "release",
]


def document_text(n: int, words: int = WORDS) -> str:
    """The text of file `n`: sentences of words from a small vocabulary, the same in every process."""
    rng = random.Random(n)
    sentences = []
    while words > 0:
        length = rng.randint(8, 20)
        sentences.append(" ".join(rng.choice(_VOCABULARY) for _ in range(length)).capitalize() + ".")
        words -= length
    return " ".join(sentences)


def ingestion_figures(*, graph, identity_tid: str, base: str, headers: dict, env: dict, worker_pid: int):
    """[(name, figure)] rows for the harness's table."""
    site = graph.add_site("/sites/ingest", "Ingestion bench")
    drive = graph.add_drive(site, "Documents")
    for n in range(FILES):
        graph.add_file(drive, f"doc-{n:03d}.txt", document_text(n).encode())
    warm = [graph.add_site(f"/sites/warm{n}", f"Warm {n}") for n in range(WARM_UPS)]
    for n, warm_site in enumerate(warm):
        graph.add_file(
            graph.add_drive(warm_site, "Documents"), "warm.txt", document_text(1000 + n, 50).encode()
        )
    session = requests.Session()
    session.headers.update(headers)
    _store_credential(session, base, identity_tid)
    warm_runs = [_upload(session, base, headers["x-tenantid"], s.web_url) for s in warm]
    for run_id in warm_runs:
        _wait(session, base, run_id)
    run = _wait(session, base, _upload(session, base, headers["x-tenantid"], site.web_url))
    if run["status"] != "success":
        return [("ingestion end to end", f"run ended {run['status']}: {run['error'] or run}")]
    seconds = _seconds(run["started_at"], run["finished_at"])
    end_to_end = run["chunks_written"] / seconds
    raw = json.loads(
        subprocess.run(
            [sys.executable, "-m", "bench.ingestion", "raw"],
            cwd=Path(__file__).resolve().parent.parent,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    raw_rate = raw["chunks_per_s"]
    return [
        (
            "ingestion end to end (chunks/s)",
            f"{end_to_end:,.1f}: {run['chunks_written']} chunks of {FILES} files in {seconds:.1f} s; raw "
            f"embedding {raw_rate:,.1f} ({raw['model']}): ratio {end_to_end / raw_rate:.2f} "
            "(floor >= 0.7)",
        ),
        ("Celery worker peak RSS (ingesting)", f"{_worker_peak_rss_mb(worker_pid):.0f} MB"),
    ]


def _store_credential(session: requests.Session, base: str, tid: str) -> None:
    response = session.post(
        base + "/api/v1/credentials",
        json={
            "integrationId": f"sitelib-{DOMAIN}",
            "credentialName": "bench document sites",
            "authType": "oauth2_client_credentials",
            "metadata": {"cloud_tid": tid, "client_id": "bench-app"},
            "secrets": {"client_secret": "bench-secret"},
        },
        timeout=30,
    )
    if response.status_code not in (200, 409):
        raise SystemExit(f"storing the bench credential failed: {response.status_code} {response.text[:200]}")


def _upload(session: requests.Session, base: str, tenant_id: str, site_url: str) -> str:
    body = {
        "sitelib_auth": False,
        "vectordb_config": {"platform_domain": DOMAIN, "tenant_id": tenant_id},
        "sync_config": {"incremental": False, "processor_mode": "auto", "use_ocr": False},
        "site_urls": [site_url],
    }
    response = session.post(base + "/v2/sitelib/upload", json=body, timeout=30)
    if response.status_code != 202:
        raise SystemExit(f"the bench upload failed: {response.status_code} {response.text[:200]}")
    return response.json()["data"]["sync_run_id"]


def _wait(session: requests.Session, base: str, run_id: str, timeout: float = 1800) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        runs = session.get(base + f"/v2/sitelib/status?sync_run_id={run_id}", timeout=30).json()["data"][
            "runs"
        ]
        if runs and runs[0]["status"] not in ("queued", "running"):
            return runs[0]
        time.sleep(0.5)
    raise SystemExit(f"the bench run {run_id} did not finish")


def _seconds(start: str, end: str) -> float:
    from datetime import datetime

    def parse(value: str) -> datetime:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))

    return (parse(end) - parse(start)).total_seconds()


def _worker_peak_rss_mb(worker_pid: int) -> float:
    """The highest peak RSS (VmHWM) among the Celery worker's pool processes."""
    peaks = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(worker_pid) and "VmHWM" in fields:
            peaks.append(int(fields["VmHWM"].split()[0]) / 1024)
    return max(peaks, default=0.0)


def raw_embedding() -> dict:
    """The configured model on the chunks of the bench's files, in calls of INGEST_EMBED_BATCH
    chunks as the pipeline makes them, after one call that loads the model."""
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.conf import settings

    from ingestion.pipeline.chunk import text_chunk
    from knowledge.embeddings import embedder

    chunks = [chunk for n in range(FILES) for chunk in text_chunk(document_text(n))]
    model = embedder()
    model.embed(chunks[:2])
    batch = settings.INGEST_EMBED_BATCH
    started = time.perf_counter()
    for at in range(0, len(chunks), batch):
        model.embed(chunks[at : at + batch])
    seconds = time.perf_counter() - started
    return {
        "chunks": len(chunks),
        "seconds": seconds,
        "chunks_per_s": len(chunks) / seconds,
        "model": model.model,
    }


if __name__ == "__main__":
    if sys.argv[1:] == ["raw"]:
        print(json.dumps(raw_embedding()))
