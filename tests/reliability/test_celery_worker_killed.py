"""A Celery worker SIGKILLed mid DEK rotation (DESIGN sections 6 and 12): a real `celery -A config
worker` on the private Redis broker and the stack's database. Tasks are acknowledged late, so the
killed worker's message stays unacknowledged in Redis and comes back after the broker's visibility
timeout (CELERY_VISIBILITY_TIMEOUT, 5 s here, 3600 s by default), found by the running worker's
sweep (every 10 s); it runs the job again and the rotation resumes from the rows themselves. Then
every credential decrypts, none is left on the old data key, and the old key is retired."""

from __future__ import annotations

import subprocess
import time

import psycopg
import pytest

from tests.live import BIN, ROOT
from tests.reliability.support import kill_group, shell, wait_until
from tests.security.reports import record

pytestmark = pytest.mark.services

CREDENTIALS = 30_000  # at 1,000-row batches (vault/services/dek.py), a rotation of a few seconds here
VISIBILITY_TIMEOUT = 5

_SEED = """
import uuid
from django.utils import timezone
from core.models import Tenant
from vault.models import Credential
from vault.services.secrets import Revealed, seal_into
tenant, now, rows = Tenant.objects.get(id={tenant!r}), timezone.now(), []
for n in range({count}):
    credential = Credential(id=uuid.uuid4(), tenant=tenant, integration_id=f"rot-{{n}}", name=f"rot {{n}}",
                            auth_type="oauth2_bearer", created_at=now)
    seal_into(credential, Revealed(f"access-{{n}}", f"refresh-{{n}}", {{"n": str(n)}}))
    rows.append(credential)
Credential.objects.bulk_create(rows, batch_size=2000)
print(len(rows))
"""

_START = """
from core.audit import system_actor
from core.models import Tenant
from vault.services.dek import dek_rotation_start
rotation = dek_rotation_start(tenant=Tenant.objects.get(id={tenant!r}), actor=system_actor("faults"))
print(rotation.id)
"""

_CHECK = """
import json
from vault.models import Credential, DataKey, DekRotation
from vault.services.secrets import reveal
rotation = DekRotation.objects.get(id={rotation!r})
wrong, versions = 0, set()
for credential in Credential.objects.filter(tenant_id=rotation.tenant_id).iterator(chunk_size=2000):
    versions.add(credential.dek_version)
    values = reveal(credential)
    n = credential.integration_id.removeprefix("rot-")
    got = (values.access_token, values.refresh_token, values.secrets)
    if got != (f"access-{{n}}", f"refresh-{{n}}", {{"n": n}}):
        wrong += 1
old = DataKey.objects.get(tenant_id=rotation.tenant_id, version=rotation.from_version)
print(json.dumps({{"wrong": wrong, "versions": sorted(versions), "to": rotation.to_version,
                  "old_key": old.status, "status": rotation.status, "rotated": rotation.items_rotated,
                  "total": rotation.items_total}}))
"""


def _worker(env: dict, log) -> subprocess.Popen:
    return subprocess.Popen(
        [str(BIN / "celery"), "-A", "config", "worker", "--concurrency", "1", "--loglevel", "WARNING"],
        cwd=ROOT,
        env=env | {"CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT)},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the SIGKILL takes the pool child too
    )


def _progress(database_url: str, rotation_id: str) -> tuple[str, int, int]:
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT status, items_rotated, items_total FROM vault_dekrotation WHERE id = %s", [rotation_id]
        ).fetchone()
    return row


def test_a_worker_killed_mid_rotation_leaves_nothing_behind(fault_stack, tmp_path):
    import json

    stack = fault_stack
    tenant = stack.personas["globex-key"].tenant_id
    database_url = stack.env["DATABASE_URL"]
    assert int(shell(stack.env, _SEED.format(tenant=tenant, count=CREDENTIALS))) == CREDENTIALS
    log = open(tmp_path / "worker.log", "wb")  # noqa: SIM115
    first = _worker(stack.env, log)
    second = None
    try:
        rotation_id = shell(stack.env, _START.format(tenant=tenant))
        # Kill it once it has moved some batches and not all of them.
        _, _, total = wait_until(
            lambda: (p := _progress(database_url, rotation_id))[1] > 0 and p, timeout=60, interval=0.02
        )
        kill_group(first)
        killed_at = time.monotonic()
        status, after_kill, _ = _progress(database_url, rotation_id)
        assert status == "in_progress" and after_kill < total, (status, after_kill, total)
        second = _worker(stack.env, log)
        wait_until(lambda: _progress(database_url, rotation_id)[0] == "completed", timeout=60, interval=0.2)
        completed_s = time.monotonic() - killed_at
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                kill_group(process)
        log.close()
    check = json.loads(shell(stack.env, _CHECK.format(rotation=rotation_id)))
    with psycopg.connect(database_url, autocommit=True) as conn:
        attempts = conn.execute(
            "SELECT attempts, status FROM adminops_jobrun WHERE params->>'rotationId' = %s", [rotation_id]
        ).fetchone()
    figures = {
        "credentials": total,
        "rotated_when_killed": after_kill,
        "completed_after_kill_s": round(completed_s, 2),
        "visibility_timeout_s": VISIBILITY_TIMEOUT,
        "job_attempts": attempts[0],
        "job_status": attempts[1],
        "undecryptable_or_changed": check["wrong"],
        "dek_versions_in_use": check["versions"],
        "old_key": check["old_key"],
    }
    record("reliability", "celery_worker_killed_mid_dek_rotation", figures)
    assert check["wrong"] == 0 and check["versions"] == [check["to"]], figures
    assert check["old_key"] == "retired" and check["status"] == "completed", figures
    assert attempts == (2, "succeeded"), figures
