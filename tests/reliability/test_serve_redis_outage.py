"""`bin/serve` (what `make run` starts) on Redis, with Redis stopped for longer than the worker's
sweep for unacknowledged messages (10 s) and started again on its port: the web keeps answering
and the service stays up, and the Celery worker runs a task queued after Redis is back (it waited
for the broker, or bin/serve started it again)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
import requests

from tests.live import ROOT, free_port, server_env
from tests.reliability.support import kill_group, shell, wait_until
from tests.security.reports import record

pytestmark = pytest.mark.services

OUTAGE = 15.0


def test_the_service_rides_out_a_redis_outage_and_runs_tasks_after_it(private_redis, tmp_path):
    port = free_port()
    env = server_env(
        tmp_path,
        PORT=str(port),
        REDIS_URL=private_redis.url(4),
        CELERY_BROKER_URL=private_redis.url(5),
        CACHE_KEY_PREFIX=f"serve-{uuid.uuid4().hex[:8]}",
    )
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        serve = subprocess.Popen(
            [sys.executable, "bin/serve"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until(lambda: "celery@" in log.read_text() and " ready." in log.read_text(), timeout=240)
        private_redis.stop()
        answers, until = [], time.monotonic() + OUTAGE
        while time.monotonic() < until:
            answers.append(requests.get(f"http://127.0.0.1:{port}/health", timeout=10).status_code)
            time.sleep(0.5)
        back = private_redis.start()
        assert serve.poll() is None, log.read_text()[-3000:]
        assert answers and set(answers) <= {200, 503}, answers
        counter = f"outage-{uuid.uuid4().hex[:8]}"
        shell(env, f"from django.core.cache import cache; from config.celery import touch; "
              f"cache.set({counter!r}, 0, 600); touch.delay({counter!r})")  # fmt: skip
        wait_until(
            lambda: shell(env, f"from django.core.cache import cache; print(cache.get({counter!r}))") == "1",
            timeout=90,
            interval=2,
        )
        assert serve.poll() is None, log.read_text()[-3000:]
        record(
            "reliability",
            "serve_redis_outage",
            {
                "outage_s": OUTAGE,
                "health_polls_during_outage": len(answers),
                "health_statuses": sorted(set(answers)),
                "task_done_s_after_redis_back": round(time.monotonic() - back, 1),
                "celery_restarts": log.read_text().count("starting it again"),
            },
        )
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGINT)
            try:
                serve.wait(timeout=30)
            except subprocess.TimeoutExpired:
                kill_group(serve)
