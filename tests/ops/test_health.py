"""Health answers from real checks: healthy, degraded when the cache is down, unhealthy (503) when
the database is. The outage cases run a real server whose dependency is unreachable."""

import time

import pytest
import requests

from tests import factories
from tests.helpers import TIMESTAMP, assert_ok
from tests.live import live_server, manage, server_env

CLOSED = "127.0.0.1:1"  # nothing listens on port 1


@pytest.mark.django_db
def test_health_is_healthy_with_version_and_timestamp(client):
    body = client.get("/health").json()
    assert body["status"] == "healthy" and body["version"] and TIMESTAMP.match(body["timestamp"])
    assert "success" not in body


@pytest.mark.django_db
def test_api_health_names_each_service(client):
    body = client.get("/api/v1/health").json()
    assert body["services"] == {
        "database": "healthy",
        "cache": "healthy",
        "queue": "healthy",
        "embeddings": "healthy",
    }
    assert body["uptime"] and body["environment"]


@pytest.mark.django_db
def test_admin_health_says_only_the_status_to_anonymous_callers(client):
    body = client.get("/api/v1/admin/health").json()
    assert set(body) == {"status", "timestamp"}


@pytest.mark.django_db
def test_admin_health_gives_an_admin_services_metrics_and_issues(client_for, owner, tenant):
    data = assert_ok(client_for(owner, tenant).get("/api/v1/admin/health"))
    assert data["status"] == "healthy" and data["issues"] == []
    assert set(data["metrics"]) == {"requestsPerMinute", "averageResponseTime", "errorRate"}


@pytest.mark.django_db
def test_admin_health_gives_a_viewer_only_the_status(client_for, teammate, tenant):
    assert set(client_for(teammate, tenant).get("/api/v1/admin/health").json()) == {"status", "timestamp"}


@pytest.fixture
def migrated(tmp_path):
    env = server_env(tmp_path)
    manage("migrate", "--no-input", env=env)
    tenant_id = manage("createtenant", "live", env=env)
    key = manage("createapikey", "--tenant", tenant_id, "--name", "k", "--scope", "admin:read", env=env)
    return env, tenant_id, key


def test_a_down_cache_degrades_but_requests_still_pass(migrated, tmp_path):
    env, tenant_id, key = migrated
    env = env | {"REDIS_URL": f"redis://{CLOSED}/0", "CELERY_BROKER_URL": "filesystem://"}
    with live_server(env, tmp_path / "server.log") as base:
        health = requests.get(base + "/api/v1/health", timeout=10)
        assert health.status_code == 200
        assert health.json()["status"] == "degraded" and health.json()["services"]["cache"] == "unhealthy"
        admin = requests.get(
            base + "/api/v1/admin/health", headers={"X-API-Key": key, "x-tenantid": tenant_id}, timeout=10
        )
        assert admin.status_code == 200 and "X-RateLimit-Limit" not in admin.headers
        assert admin.json()["data"]["issues"][0]["service"] == "cache"
    assert "failing open" in (tmp_path / "server.log").read_text()


def test_a_down_broker_degrades(migrated, tmp_path):
    env, _, _ = migrated
    with live_server(env | {"CELERY_BROKER_URL": f"redis://{CLOSED}/0"}) as base:
        body = requests.get(base + "/api/v1/health", timeout=15).json()
        assert body["status"] == "degraded" and body["services"]["queue"] == "unhealthy"


def test_a_down_database_is_unhealthy_503_and_api_calls_answer_503_not_500(tmp_path):
    env = server_env(tmp_path, DATABASE_URL=f"postgres://postgres@{CLOSED}/nothing")
    with live_server(env) as base:
        root = requests.get(base + "/health", timeout=10)
        assert root.status_code == 503 and root.json()["status"] == "unhealthy"
        detailed = requests.get(base + "/api/v1/health", timeout=10).json()
        assert detailed["services"]["database"] == "unhealthy"
        admin = requests.get(base + "/api/v1/admin/health", timeout=10)
        assert admin.status_code == 503 and admin.json()["status"] == "unhealthy"
        assert "postgres://" not in admin.text
        login = requests.post(
            base + "/api/v1/auth/token", json={"username": "u", "password": "p"}, timeout=10
        )
        assert login.status_code == 503 and login.json()["error"]["code"] == "SERVICE_UNAVAILABLE"
        assert login.headers["Retry-After"] == "5"
        listing = requests.post(
            base + "/v2/cloudstore/failed-files",
            json={},
            headers={
                "X-API-Key": "ak_live_" + "x" * 40,
                "x-tenantid": "6f1c4f3e-0000-4000-8000-000000000000",
            },
            timeout=10,
        )
        assert listing.status_code == 503 and "database is unavailable" in listing.json()["detail"]
    assert factories  # factories are for the in-process tests above


def test_a_web_process_loads_the_embedding_model_in_the_background(migrated):
    env, _, _ = migrated
    with live_server(env | {"EMBEDDING_BACKEND": "local"}) as base:
        first = requests.get(base + "/health", timeout=10)  # the process answers at once
        assert first.status_code == 200 and first.json()["status"] == "degraded", first.text
        assert first.json()["issues"][0]["message"].startswith("The embedding model is loading")
        deadline = time.monotonic() + 180
        while requests.get(base + "/health", timeout=10).json()["status"] != "healthy":
            assert time.monotonic() < deadline, "the model did not load"
            time.sleep(1)
