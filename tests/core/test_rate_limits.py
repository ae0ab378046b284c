"""Two buckets per request (tenant, principal), headers on every authenticated answer, 429 after."""

import time

import pytest
from django.core.cache import cache

from core.api.errors import RateLimited
from core.api.ratelimit import EXPIRY_MARGIN, Bucket, rate_limit_hit, rate_limit_peek
from tests import factories
from tests.helpers import assert_error, assert_ok, assert_tool_error

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.probe_urls")]


@pytest.fixture
def key(tenant):
    return factories.make_api_key(tenant, ["*"])[0]


def test_every_authenticated_answer_carries_the_rate_headers(client_for, owner, tenant, key):
    response = client_for(owner, tenant).get(f"/api/v1/probe/keys/{key.id}")
    assert_ok(response)
    assert int(response["X-RateLimit-Limit"]) == 600
    assert int(response["X-RateLimit-Remaining"]) == 599
    assert int(response["X-RateLimit-Reset"]) > time.time()


def test_errors_after_authentication_carry_them_too(client_for, owner, tenant):
    response = client_for(owner, tenant).get("/api/v1/probe/keys/nope")
    assert_error(response, 404, "API_KEY_NOT_FOUND")
    assert "X-RateLimit-Remaining" in response


def test_the_principal_bucket_answers_429_with_retry_after(client_for, owner, tenant, key, settings):
    settings.RATE_LIMIT_PER_KEY = "3/m"
    client = client_for(owner, tenant)
    remaining = [int(client.get(f"/api/v1/probe/keys/{key.id}")["X-RateLimit-Remaining"]) for _ in range(3)]
    assert remaining == [2, 1, 0]
    response = client.get(f"/api/v1/probe/keys/{key.id}")
    error = assert_error(response, 429, "RATE_LIMITED")
    assert error["details"]["source"] == "hub"
    assert 1 <= int(response["Retry-After"]) <= 60
    assert response["X-RateLimit-Remaining"] == "0"


def test_the_tenant_bucket_is_shared_by_its_principals(client_for, owner, teammate, tenant, key, settings):
    settings.RATE_LIMIT_PER_TENANT = "2/m"
    assert_ok(client_for(owner, tenant).get(f"/api/v1/probe/keys/{key.id}"))
    assert_ok(client_for(teammate, tenant).get(f"/api/v1/probe/keys/{key.id}"))
    assert_error(client_for(teammate, tenant).get(f"/api/v1/probe/keys/{key.id}"), 429, "RATE_LIMITED")


def test_another_tenant_keeps_its_own_budget(
    client_for, owner, outsider, tenant, other_tenant, key, settings
):
    settings.RATE_LIMIT_PER_TENANT = "1/m"
    assert_ok(client_for(owner, tenant).get(f"/api/v1/probe/keys/{key.id}"))
    other_key = factories.make_api_key(other_tenant, ["*"])[0]
    assert_ok(client_for(outsider, other_tenant).get(f"/api/v1/probe/keys/{other_key.id}"))


def test_the_tool_family_answers_rate_limited_in_its_envelope(client_for, tenant, key, settings):
    settings.RATE_LIMIT_PER_KEY = "1/m"
    client = client_for(factories.make_api_key(tenant, ["*"])[1], tenant)
    assert client.get(f"/api/v1/tools/probe/keys/{key.id}").status_code == 200
    response = client.get(f"/api/v1/tools/probe/keys/{key.id}")
    assert assert_tool_error(response, 429, "RATE_LIMITED")["details"]["source"] == "hub"
    assert response["Retry-After"]


def test_when_the_cache_is_down_requests_pass_and_a_warning_is_logged(
    client_for, owner, tenant, key, settings, caplog, monkeypatch
):
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
        }
    }
    from core import cachedown

    monkeypatch.setattr(cachedown, "_last", {})
    response = client_for(owner, tenant).get(f"/api/v1/probe/keys/{key.id}")
    assert_ok(response)
    assert "X-RateLimit-Limit" not in response
    assert any("failing open" in r.getMessage() for r in caplog.records)


def test_unauthenticated_answers_carry_no_rate_headers(client_for, key):
    response = client_for(None).get(f"/api/v1/probe/keys/{key.id}")
    assert_error(response, 401, "UNAUTHORIZED")
    assert "X-RateLimit-Limit" not in response


def test_buckets_count_each_request_once_and_expire_with_their_window():
    tenant_bucket, key_bucket = (
        Bucket("tenant", "t-probe", "5/m"),
        Bucket("principal", "api_key:probe", "3/m"),
    )
    states = [rate_limit_hit([tenant_bucket, key_bucket]) for _ in range(3)]
    assert [s.remaining for s in states] == [2, 1, 0]
    assert rate_limit_peek(tenant_bucket) == 3 and rate_limit_peek(key_bucket) == 3
    if hasattr(cache, "ttl"):  # Redis
        now = int(time.time())
        name, _limit, end = key_bucket.window(now)
        assert 0 < cache.ttl(name) <= end - now + EXPIRY_MARGIN + 1  # Redis rounds a TTL to the second
    with pytest.raises(RateLimited):
        rate_limit_hit([tenant_bucket, key_bucket])


@pytest.mark.skipif(not hasattr(cache, "ttl"), reason="the cache is not Redis (services run)")
def test_on_redis_counting_goes_on_when_redis_drops_the_connection(caplog):
    """A connection Redis has closed while idle is replaced before the next count: that request
    is counted, not let through uncounted with a warning."""
    from tests.core.test_usage_counters_redis import drop_the_cache_connection

    bucket = Bucket("principal", "api_key:dropped", "5/m")
    assert rate_limit_hit([bucket]).remaining == 4
    drop_the_cache_connection()
    assert rate_limit_hit([bucket]).remaining == 3
    assert "Rate limiter cache unavailable" not in caplog.text


def test_a_rate_is_read_as_requests_per_window():
    from core.api.ratelimit import rate_parse

    assert rate_parse("600/m") == (600, 60)
    assert rate_parse("10/5m") == (10, 300)
    assert rate_parse("100/h") == (100, 3600)
