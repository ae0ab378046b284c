"""Redis stopped under load (DESIGN section 12): no 500, requests pass with the rate limiter open
(no X-RateLimit headers), health `degraded`; when Redis is back on its port, the headers return and
health is `healthy` again."""

from __future__ import annotations

import time

import pytest
import requests

from tests.reliability.support import Load, wait_until
from tests.security.reports import record

pytestmark = pytest.mark.services

PATHS = ["/api/v1/credentials", "/api/v1/connections", "/api/v1/tools", "/api/v1/api-keys"]
PHASE = 3.0  # seconds of load in each state


def _health(stack) -> str:
    return requests.get(stack.base + "/api/v1/health", timeout=10).json()["status"]


def test_redis_stopped_mid_load_fails_open_and_recovers(fault_stack, private_redis):
    stack = fault_stack
    persona = stack.personas["acme-key"]
    assert _health(stack) == "healthy"
    with Load(stack.base, PATHS, persona.headers(), threads=4) as load:
        time.sleep(PHASE)
        stopped = time.monotonic()
        private_redis.stop()
        wait_until(lambda: _health(stack) == "degraded", timeout=10)
        down_from = time.monotonic()
        time.sleep(PHASE)
        down_to = time.monotonic()
        back = private_redis.start()
        healthy_at = wait_until(lambda: _health(stack) == "healthy" and time.monotonic(), timeout=30)
        headers_at = wait_until(
            lambda: next((a.at for a in load.between(back) if a.rate_headers), None), timeout=30
        )
        time.sleep(PHASE)
    before, during, after = load.between(0, stopped), load.between(down_from, down_to), load.between(back)
    everything = load.answers
    figures = {
        "requests": len(everything),
        "before": len(before),
        "while_down": len(during),
        "after": len(after),
        "status_500_or_more": sum(a.status >= 500 for a in everything),
        "no_answer": sum(a.status == 0 for a in everything),
        "not_200": sum(a.status != 200 for a in everything),
        "rate_headers_while_down": sum(a.rate_headers for a in during),
        "health_healthy_after_restart_s": round(healthy_at - back, 2),
        "rate_headers_back_after_restart_s": round(headers_at - back, 2),
        "down_s": round(back - stopped, 2),
    }
    record("reliability", "redis_stopped_mid_load", figures)
    assert before and during and after, figures
    assert figures["not_200"] == 0, figures  # no 500, no refusal, no dropped connection
    assert all(a.rate_headers for a in before), figures
    assert figures["rate_headers_while_down"] == 0, figures
    late = [a for a in after if a.at > headers_at + 1.0]
    assert late and all(a.rate_headers for a in late), figures
    assert figures["health_healthy_after_restart_s"] < 10, figures
