"""Idempotent execute under faults, on the live stack (PostgreSQL, two gunicorn workers) against a
loopback wiki fake that holds each request: a write whose gunicorn worker is SIGKILLed while the
vendor has the request, with the client retrying on the same key; and 100 concurrent duplicates.
Both: exactly one vendor call."""

from __future__ import annotations

import base64
import json
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.fakes.wiki_tools import FakeWikiTools
from tests.reliability.support import gunicorn_workers, shell, wait_until
from tests.security.reports import record

pytestmark = pytest.mark.services

CREATE = "/api/v1/tools/wiki.page.create/execute"
CONNECT_TIMEOUT, READ_TIMEOUT = 1, 4  # the connection's own: a write's lease is 5 s (+1 s margin)

_CONNECTION = """
from core.audit import system_actor
from core.models import Tenant
from toolhub.services.connections import connection_create
from vault.services.credentials import credential_store
tenant, actor = Tenant.objects.get(id={tenant!r}), system_actor("faults")
credential_store(tenant=tenant, actor=actor, integration_id="wiki-faults", name="wiki",
                 auth_type="basic_auth", access_token={pair!r})
connection = connection_create(tenant=tenant, actor=actor, name="wiki-faults", domain="wiki",
    connector="wikispace", base_url={url!r}, integration_id="wiki-faults",
    settings={{"connect_timeout": {connect}, "read_timeout": {read}}})
print(connection.public_id)
"""


@pytest.fixture(scope="module")
def wiki(fault_stack):
    with FakeWikiTools() as fake:
        fake.add_user("bot@acme.test", "api-token")
        fake.space = fake.add_space("ENG", "Engineering")
        pair = base64.b64encode(b"bot@acme.test:api-token").decode()
        fake.connection_id = shell(
            fault_stack.env,
            _CONNECTION.format(
                tenant=fault_stack.personas["acme-key"].tenant_id,
                pair=pair,
                url=fake.instance_url,
                connect=CONNECT_TIMEOUT,
                read=READ_TIMEOUT,
            ),
        )
        yield fake


def _body(wiki, title: str, key: str) -> dict:
    return {
        "input": {"space_id": str(wiki.space.id), "title": title, "body": "<p>x</p>"},
        "connection_id": wiki.connection_id,
        "idempotency_key": key,
    }


def _creates(wiki, title: str) -> int:
    return sum(1 for r in wiki.requests_to("/wiki/api/v2/pages$") if r.json()["title"] == title)


def test_a_worker_killed_mid_execute_makes_one_vendor_call(fault_stack, wiki):
    stack = fault_stack
    headers = stack.personas["acme-key"].headers()
    body = _body(wiki, "Killed mid-call", "kill-1")
    wiki.latency = 2.0  # the vendor holds the request: the worker is killed while it waits
    workers_before = gunicorn_workers(stack.base)
    assert len(workers_before) == 2, workers_before
    answers: list[tuple[float, int | str]] = []
    final: list[requests.Response] = []

    def client() -> None:
        """Repeat with the same key until a final answer (not 409, not a dropped connection)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                response = requests.post(stack.base + CREATE, json=body, headers=headers, timeout=30)
            except requests.RequestException as exc:
                answers.append((time.monotonic(), type(exc).__name__))
                time.sleep(0.3)
                continue
            answers.append((time.monotonic(), response.status_code))
            if response.status_code != 409:
                final.append(response)
                return
            assert response.headers["Retry-After"] == "1"
            time.sleep(0.5)

    try:
        thread = threading.Thread(target=client, daemon=True)
        thread.start()
        wait_until(lambda: _creates(wiki, "Killed mid-call") == 1, timeout=20, interval=0.02)
        killed_at = time.monotonic()
        for pid in workers_before:  # the one holding the call among them
            os.kill(pid, signal.SIGKILL)
        thread.join(timeout=60)
    finally:
        wiki.latency = 0.0
    assert final, answers
    replay = requests.post(stack.base + CREATE, json=body, headers=headers, timeout=30)
    error = final[0].json()["error"]
    figures = {
        "workers_killed": len(workers_before),
        "client_attempts": len(answers),
        "dropped_connections": sum(isinstance(status, str) for _, status in answers),
        "in_progress_409": sum(status == 409 for _, status in answers),
        "final_status": final[0].status_code,
        "final_code": error.get("details", {}).get("vendor_code"),
        "final_answer_after_kill_s": round(answers[-1][0] - killed_at, 2),
        "vendor_calls": _creates(wiki, "Killed mid-call"),
    }
    record("reliability", "gunicorn_worker_killed_mid_execute", figures)
    assert figures["vendor_calls"] == 1, figures
    assert final[0].status_code == 502 and error["code"] == "UPSTREAM_ERROR", figures
    assert error["details"]["vendor_code"] == "OUTCOME_UNKNOWN" and error["details"]["status"] is None
    assert figures["dropped_connections"] >= 1, figures  # the kill did cut the first attempt
    assert (replay.status_code, replay.content) == (502, final[0].content)
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert set(gunicorn_workers(stack.base)).isdisjoint(workers_before)  # the master replaced them


def test_a_hundred_concurrent_duplicates_make_one_vendor_call(fault_stack, wiki):
    stack = fault_stack
    headers = stack.personas["acme-key"].headers()
    body = _body(wiki, "Stampede", "stampede-100")
    wiki.latency = 1.0  # keep the first call in flight while the others arrive
    barrier = threading.Barrier(100)

    def call(_):
        barrier.wait(timeout=30)
        return requests.post(stack.base + CREATE, json=body, headers=headers, timeout=60)

    started = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=100) as pool:
            responses = list(pool.map(call, range(100)))
    finally:
        wiki.latency = 0.0
    elapsed = time.monotonic() - started
    fresh = [r for r in responses if r.status_code == 200 and "Idempotent-Replayed" not in r.headers]
    replays = [r for r in responses if r.headers.get("Idempotent-Replayed") == "true"]
    busy = [r for r in responses if r.status_code == 409]
    figures = {
        "duplicates": len(responses),
        "vendor_calls": _creates(wiki, "Stampede"),
        "first_result": len(fresh),
        "replays": len(replays),
        "in_progress_409": len(busy),
        "other": len(responses) - len(fresh) - len(replays) - len(busy),
        "seconds": round(elapsed, 2),
    }
    record("reliability", "hundred_concurrent_duplicates", figures)
    assert figures["vendor_calls"] == 1 and figures["first_result"] == 1 and figures["other"] == 0, figures
    assert all(r.status_code == 200 and r.content == fresh[0].content for r in replays)
    for response in busy:
        assert response.json()["error"]["code"] == "IDEMPOTENCY_IN_PROGRESS"
        assert response.headers["Retry-After"] == "1"
    again = requests.post(stack.base + CREATE, json=body, headers=headers, timeout=30)
    assert again.content == fresh[0].content and again.headers["Idempotent-Replayed"] == "true"
    assert json.loads(fresh[0].content)["data"]["title"] == "Stampede"
