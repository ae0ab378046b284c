"""The web server as bin/serve starts it (gunicorn with config/gunicorn.py), for real: what gunicorn
refuses before the application answers JSON, and rate limits are exact on the embedded default (a
process-local cache) and on Redis."""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
import requests

from tests.helpers import TIMESTAMP
from tests.live import live_server, manage, server_env


def _assert_v1_json_error(response, status: int, code: str) -> None:
    assert response.status_code == status, response.text[:300]
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["X-Request-ID"].startswith("req_")
    body = response.json()
    assert set(body) == {"success", "error", "timestamp"} and body["success"] is False
    assert body["error"]["code"] == code and body["error"]["message"] and body["error"]["details"] == {}
    assert TIMESTAMP.match(body["timestamp"])


def _raw(base: str, request: bytes) -> bytes:
    """Bytes no HTTP client would send (a malformed request line)."""
    address = urlsplit(base)
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with live_server(server_env(tmp_path_factory.mktemp("web")), workers=None, threads=None) as base:
        yield base


def test_a_9_kb_query_string_is_a_json_414(server):
    response = requests.get(f"{server}/api/v1/health", params={"q": "a" * 9 * 1024}, timeout=10)
    _assert_v1_json_error(response, 414, "URI_TOO_LONG")
    assert "8190" in response.json()["error"]["message"]


def test_a_long_query_string_under_the_limit_reaches_the_application(server):
    response = requests.get(f"{server}/v2/no-such-thing", params={"q": "a" * 8000}, timeout=10)
    assert response.status_code == 404 and set(response.json()) == {"detail"}  # /v2's own 404


def test_headers_too_large_are_a_json_431(server):
    response = requests.get(f"{server}/health", headers={"X-Big": "a" * 9000}, timeout=10)
    _assert_v1_json_error(response, 431, "HEADERS_TOO_LARGE")


def test_a_malformed_request_line_is_a_json_400(server):
    answer = _raw(server, b"GET /a b c HTTP/1.1\r\nHost: x\r\n\r\n")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ") and b"Content-Type: application/json" in head
    assert b'"code": "BAD_REQUEST"' in body


# ---- rate limits: exactly the limit passes, whatever the number of processes asked for


LIMIT = 20


def _key(env: dict) -> tuple[str, str]:
    manage("migrate", "--no-input", "-v", "0", env=env)
    tenant_id = manage("createtenant", "limits", env=env)
    key = manage("createapikey", "--tenant", tenant_id, "--name", "k", "--scope", "tools:read", env=env)
    return tenant_id, key


def _hammer(base: str, tenant_id: str, key: str, calls: int) -> list[requests.Response]:
    seconds_left = 60 - time.time() % 60
    if seconds_left < 20:  # all calls in one fixed one-minute window
        time.sleep(seconds_left + 0.5)
    headers = {"X-API-Key": key, "x-tenantid": tenant_id}
    with ThreadPoolExecutor(8) as pool:
        return list(
            pool.map(
                lambda _: requests.get(f"{base}/api/v1/tools", headers=headers, timeout=20), range(calls)
            )
        )


def _assert_exact(responses: list[requests.Response]) -> None:
    assert Counter(r.status_code for r in responses) == {200: LIMIT, 429: len(responses) - LIMIT}
    remaining = sorted(int(r.headers["X-RateLimit-Remaining"]) for r in responses if r.status_code == 200)
    assert remaining == list(range(LIMIT))  # one counter: each call saw its own count


def test_rate_limits_are_exact_on_the_embedded_default(tmp_path):
    # WEB_WORKERS=2 as `make run` asks by default; without REDIS_URL the cache is process-local.
    env = server_env(tmp_path, RATE_LIMIT_PER_KEY=f"{LIMIT}/m", CELERY_BROKER_URL="filesystem://")
    tenant_id, key = _key(env)
    with live_server(env, workers=2, threads=None) as base:
        _assert_exact(_hammer(base, tenant_id, key, 3 * LIMIT))


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL (the services run)")
def test_rate_limits_are_exact_across_processes_on_redis(tmp_path):
    env = server_env(
        tmp_path,
        RATE_LIMIT_PER_KEY=f"{LIMIT}/m",
        CELERY_BROKER_URL="filesystem://",
        REDIS_URL=os.environ["REDIS_URL"],
        CACHE_KEY_PREFIX=f"live-{uuid.uuid4().hex[:8]}",
    )
    tenant_id, key = _key(env)
    with live_server(env, workers=2, threads=None) as base:
        _assert_exact(_hammer(base, tenant_id, key, 3 * LIMIT))
