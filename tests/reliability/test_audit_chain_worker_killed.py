"""The audit trail under faults, on the live stack (PostgreSQL, two gunicorn workers): clients store
credentials and read them decrypted, both audited, while every gunicorn worker is SIGKILLed with
their requests in flight. Afterwards every chain of the tenant verifies (no gap, no fork,
no duplicate), every stored credential has exactly one CREDENTIAL_CREATED entry and every entry
its credential, and the reads counted are the reads audited."""

from __future__ import annotations

import os
import signal
import threading
import time

import psycopg
import pytest
import requests

from tests.live import manage
from tests.reliability.support import gunicorn_workers, wait_until
from tests.security.reports import record
from tests.security.stack import Persona

pytestmark = pytest.mark.services

URL = "/api/v1/credentials"


def test_workers_killed_mid_write_leave_every_audit_chain_whole(fault_stack):
    stack = fault_stack
    # A tenant of its own: the other faults' tenants keep only the rows they seed.
    tenant_id = manage("createtenant", "audit-faults", env=stack.env)
    key = manage(
        "createapikey", "--tenant", tenant_id, "--name", "audit-faults", "--scope", "*", env=stack.env
    )
    headers = Persona("audit-faults-key", tenant_id, key).headers()
    stored: list[str] = []
    cut: list[str] = []  # requests without an answer (the kill cut them)
    stop = threading.Event()

    def client(n: int) -> None:
        session, i = requests.Session(), 0
        while not stop.is_set():
            name = f"kill-{n}-{i}"
            i += 1
            try:
                body = {
                    "integrationId": name,
                    "credentialName": name,
                    "authType": "api_key",
                    "accessToken": "t",
                }
                response = session.post(stack.base + URL, json=body, headers=headers, timeout=15)
                if response.status_code == 200:
                    stored.append(name)
                    session.get(f"{stack.base}{URL}/{name}", headers=headers, timeout=15)
            except requests.RequestException:
                cut.append(name)
                session = requests.Session()
                time.sleep(0.05)

    workers_before = gunicorn_workers(stack.base)
    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(6)]
    for thread in threads:
        thread.start()
    try:
        wait_until(lambda: len(stored) >= 20, timeout=60, interval=0.05)
        for pid in workers_before:
            os.kill(pid, signal.SIGKILL)
        wait_until(lambda: set(gunicorn_workers(stack.base)).isdisjoint(workers_before), timeout=60)
        count = len(stored)
        wait_until(lambda: len(stored) >= count + 20, timeout=60, interval=0.05)  # served again
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)

    verified = manage("verify_audit_chain", "--tenant", tenant_id, env=stack.env)
    with psycopg.connect(stack.env["DATABASE_URL"]) as db:
        created = db.execute(
            "SELECT resource->>'name', count(*) FROM adminops_auditentry"
            " WHERE action = 'CREDENTIAL_CREATED' AND resource->>'name' LIKE 'kill-%'"
            " GROUP BY 1"
        ).fetchall()
        rows = {
            name
            for (name,) in db.execute(
                "SELECT integration_id FROM vault_credential WHERE integration_id LIKE 'kill-%'"
            )
        }
        reads = db.execute(
            "SELECT count(*) FROM adminops_auditentry"
            " WHERE action = 'CREDENTIAL_SECRET_READ' AND resource->>'name' LIKE 'kill-%'"
        ).fetchone()[0]
        counted = db.execute(
            "SELECT coalesce(sum(access_count), 0)::bigint FROM vault_credential"
            " WHERE integration_id LIKE 'kill-%'"
        ).fetchone()[0]
    figures = {
        "workers_killed": len(workers_before),
        "requests_cut": len(cut),
        "stores_answered_200": len(stored),
        "credentials": len(rows),
        "created_entries": sum(n for _, n in created),
        "read_entries": reads,
        "reads_counted": counted,
        "verify_audit_chain": verified,
    }
    record("reliability", "gunicorn_workers_killed_mid_write_audit_chain", figures)
    assert "verified" in verified, figures
    assert all(n == 1 for _, n in created)  # no duplicate entry
    assert {name for name, _ in created} == rows  # no change without its entry, no entry without it
    assert set(stored) <= rows  # every store answered 200 is there
    assert reads == counted and reads >= len(stored) - len(threads)  # a read in flight may be cut
