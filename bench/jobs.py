"""Job benchmarks of the harness, run in the bench environment while the service and its Celery
worker are up: DEK rotation of the seeded credentials (rows/s beside a plain bulk UPDATE of the same
rows) and 1,000 trivial tasks through the worker. Prints one JSON list of [name, figure] pairs."""

from __future__ import annotations

import json
import os
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402

from config.celery import touch  # noqa: E402
from core.audit import system_actor  # noqa: E402
from core.models import Tenant  # noqa: E402
from vault.models import Credential, DekRotation  # noqa: E402
from vault.services.dek import dek_rotation_start  # noqa: E402


def dek_rotation(tenant: Tenant) -> list[str]:
    rows = Credential.objects.filter(tenant=tenant).count()
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE vault_credential SET dek_version = dek_version WHERE tenant_id = %s", [tenant.id]
        )
    bulk = rows / (time.perf_counter() - started)
    started = time.perf_counter()
    rotation = dek_rotation_start(tenant=tenant, actor=system_actor("bench"))  # queues the batched job
    while DekRotation.objects.get(id=rotation.id).status == DekRotation.Status.IN_PROGRESS:
        if time.perf_counter() - started > 600:
            return ["DEK rotation", "did not finish in 10 minutes"]
        time.sleep(0.01)  # the rotation of 10,000 rows takes a few tenths of a second: poll finely
    rate = rows / (time.perf_counter() - started)
    return [
        "DEK rotation (rows/s)",
        f"{rate:,.0f} (floor >= 1,000) vs bulk UPDATE {bulk:,.0f}: ratio {rate / bulk:.3f}",
    ]


def queue_throughput(count: int = 1000) -> list[str]:
    key = f"bench:touch:{time.time()}"
    cache.set(key, 0, 3600)
    started = time.perf_counter()
    for _ in range(count):
        touch.delay(key)
    queued = time.perf_counter() - started
    while (cache.get(key) or 0) < count:
        if time.perf_counter() - started > 300:
            return ["1,000 Celery tasks", f"only {cache.get(key)} done in 5 minutes"]
        time.sleep(0.02)
    total = time.perf_counter() - started
    return [
        "1,000 Celery tasks",
        f"queued in {queued:.2f}s, all done in {total:.2f}s ({count / total:,.0f}/s)",
    ]


if __name__ == "__main__":
    bench_tenant = Tenant.objects.get(id=sys.argv[1])
    # The task throughput first: it also warms both worker processes, so that the rotation's figure
    # is the rotation's and not a cold worker's first task (its database connection and key checks).
    tasks = queue_throughput()
    print(json.dumps([dek_rotation(bench_tenant), tasks]))
