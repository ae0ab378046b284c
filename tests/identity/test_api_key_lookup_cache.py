"""The API-key lookup cache (identity.authcache): a cached key stops authenticating at once when it
is revoked, disabled, expired or rotated away, or when its tenant is suspended, in every process."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import models
from django.utils import timezone

from core.audit import system_actor
from identity import authcache
from identity.models import ApiKey
from identity.services.api_keys import api_key_revoke
from tests import factories
from tests.helpers import assert_error, assert_ok

URL = "/api/v1/credentials"


# The row caches at work, as production runs them (a cache every process shares).
pytestmark = pytest.mark.usefixtures("shared_cache")


@pytest.fixture
def cached(client_for, tenant):
    """A key that has authenticated once, so its row sits in the lookup cache."""
    key, raw = factories.make_api_key(tenant, ["*"])
    client = client_for(raw, tenant)
    assert_ok(client.get(URL))
    return key, client


def test_a_cached_key_needs_no_query(cached, django_assert_num_queries):
    _key, client = cached
    with django_assert_num_queries(1):  # the empty list's COUNT, no key lookup
        assert_ok(client.get(URL))


def test_it_rejects_a_key_revoked_through_the_service(cached, tenant):
    key, client = cached
    api_key_revoke(tenant=tenant, key=key, permanent=False, actor=system_actor("tests"), request_id="r")
    assert_error(client.get(URL), 401, "UNAUTHORIZED")


def test_it_rejects_a_key_deleted_through_the_service(cached, tenant):
    key, client = cached
    api_key_revoke(tenant=tenant, key=key, permanent=True, actor=system_actor("tests"), request_id="r")
    assert_error(client.get(URL), 401, "UNAUTHORIZED")


@pytest.mark.parametrize(
    "change",
    [{"status": ApiKey.Status.REVOKED}, {"status": ApiKey.Status.INACTIVE}, {"key_hash": "0" * 64}],
)
def test_it_rejects_a_key_changed_by_a_bulk_update(cached, change):
    key, client = cached
    ApiKey.objects.filter(id=key.id).update(**change)
    assert_error(client.get(URL), 401, "UNAUTHORIZED")


def test_it_rejects_a_key_that_expires_while_cached(client_for, tenant):
    _key, raw = factories.make_api_key(tenant, ["*"], expires_at=timezone.now() + timedelta(seconds=1))
    client = client_for(raw, tenant)
    assert_ok(client.get(URL))  # cached
    time.sleep(1.1)  # nothing was written: only the clock moved past its expiry
    assert_error(client.get(URL), 401, "UNAUTHORIZED")


def test_it_refuses_a_cached_key_once_its_tenant_is_suspended(cached, tenant):
    _key, client = cached
    tenant.status = "suspended"
    tenant.save()
    assert_error(client.get(URL), 403, "TENANT_INACTIVE")


def test_usage_statistics_written_to_the_row_keep_the_cache(cached):
    key, _client = cached
    before = cache.get(authcache.GENERATION_KEY)
    ApiKey.objects.filter(id=key.id).update(usage_count=5, last_used_ip="10.0.0.1")
    assert cache.get(authcache.GENERATION_KEY) == before


def test_an_entry_of_an_older_generation_is_never_used(cached):
    key, client = cached
    digest = key.key_hash
    generation, row = cache.get(f"apikey-auth:{digest}")
    row.status = ApiKey.Status.ACTIVE
    ApiKey.objects.filter(id=key.id).update(status=ApiKey.Status.REVOKED)
    cache.set(f"apikey-auth:{digest}", (generation, row))  # a stale entry left by a slow process
    assert_error(client.get(URL), 401, "UNAUTHORIZED")


def test_a_flushed_cache_starts_a_new_generation(cached):
    _key, client = cached
    cache.clear()
    assert_ok(client.get(URL))
    assert cache.get(authcache.GENERATION_KEY) is not None


# ---- a cached key through the whole request: counted once, refused at once, same checks


def remaining(response) -> int:
    assert_ok(response)
    return int(response["X-RateLimit-Remaining"])


def test_a_cached_key_is_counted_once_when_other_keys_change(cached, tenant):
    _key, client = cached
    before = remaining(client.get(URL))
    factories.make_api_key(tenant, ["*"])  # a write to API keys: every cached entry is stale
    assert remaining(client.get(URL)) == before - 1
    assert remaining(client.get(URL)) == before - 2


def test_a_cached_key_is_refused_at_once_after_a_bulk_revoke(cached):
    key, client = cached
    assert_ok(client.get(URL))
    before = remaining(client.get(URL))
    ApiKey.objects.filter(id=key.id).update(status=ApiKey.Status.REVOKED)
    assert_error(client.get(URL), 401, "UNAUTHORIZED")
    ApiKey.objects.filter(id=key.id).update(status=ApiKey.Status.ACTIVE)
    assert remaining(client.get(URL)) == before - 1  # the refused request was not counted


def test_a_cached_key_follows_a_new_address_allowlist(cached):
    key, client = cached
    ApiKey.objects.filter(id=key.id).update(ip_whitelist=["10.9.9.9"])
    assert_error(client.get(URL), 403, "IP_NOT_ALLOWED")


def test_a_cached_key_still_belongs_to_its_own_tenant_only(cached, other_tenant):
    _key, client = cached
    client.credentials(
        HTTP_AUTHORIZATION=client._credentials["HTTP_AUTHORIZATION"], HTTP_X_TENANTID=str(other_tenant.id)
    )
    response = client.get(URL)
    assert_error(response, 403, "FORBIDDEN")
    assert "X-RateLimit-Remaining" not in response


def test_on_the_embedded_default_a_key_revoked_by_another_process_stops_at_once(settings, client_for, tenant):
    """Without Redis each process caches in its own memory, where another process's write (a job in
    the worker, a command) could not reach: there the lookups read the database every time."""
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "x"}
    }
    key, raw = factories.make_api_key(tenant, ["*"])
    client = client_for(raw, tenant)
    assert_ok(client.get(URL))
    assert_ok(client.get(URL))
    # Another process's write: the row changes, and nothing in this process hears of it.
    models.QuerySet(model=ApiKey).filter(id=key.id).update(status=ApiKey.Status.REVOKED)
    assert_error(client.get(URL), 401, "UNAUTHORIZED")
