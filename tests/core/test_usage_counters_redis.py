"""The usage counters (core.usage, identity.usage): calls, windows, outcomes, first and last use,
and the move of a key's counts onto its row, through the Django cache (locmem by default, Redis in
the services run)."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.utils import timezone

from core.principals import Principal
from core.usage import month_label, tenant_calls, usage_record
from identity.models import ApiKey
from identity.usage import api_key_usage_flush, api_key_window_counts
from tests import factories

on_redis = pytest.mark.skipif(not hasattr(cache, "ttl"), reason="the cache is not Redis")


@pytest.mark.django_db
def test_it_counts_calls_windows_and_outcomes_and_moves_them_onto_the_key(tenant):
    key, _raw = factories.make_api_key(tenant)
    principal = Principal.of_api_key(key)
    for status in (200, 201, 404):
        usage_record(principal=principal, tenant_id=str(tenant.id), ip="10.0.0.9", failed=status >= 400)
    assert api_key_window_counts(key.id) == {"hourCount": 3, "dayCount": 3}
    assert tenant_calls(tenant.id, month_label(timezone.now())) == 3
    api_key_usage_flush(key)
    assert (key.usage_count, key.success_count, key.failure_count) == (3, 2, 1)
    assert key.last_used_ip == "10.0.0.9" and key.first_used_at <= key.last_used_at
    usage_record(principal=principal, tenant_id=None, ip="10.0.0.10", failed=False)
    api_key_usage_flush(key)  # only what was counted since the last move
    assert (key.usage_count, key.success_count, key.failure_count) == (4, 3, 1)
    assert key.last_used_ip == "10.0.0.10"
    api_key_usage_flush(key)
    assert ApiKey.objects.get(id=key.id).usage_count == 4


@on_redis
def test_on_redis_the_hour_window_expires_with_its_hour():
    usage_record(
        principal=Principal(kind="api_key", id="key-usage-ttl", name="k"),
        tenant_id=None,
        ip=None,
        failed=False,
    )
    assert 0 < cache.ttl("usage:ak:key-usage-ttl:h:" + timezone.now().strftime("%Y%m%d%H")) <= 7200


@on_redis
def test_counting_resumes_when_redis_drops_the_connection():
    key = Principal(kind="api_key", id="key-dropped", name="k")
    usage_record(principal=key, tenant_id=None, ip=None, failed=False)
    drop_the_cache_connection()
    usage_record(principal=key, tenant_id=None, ip=None, failed=False)
    assert api_key_window_counts("key-dropped")["hourCount"] == 2


def drop_the_cache_connection() -> None:
    """Redis closes the idle connection the cache will use next (as after a server timeout)."""
    import redis
    from django.conf import settings
    from django_redis import get_redis_connection

    victim = get_redis_connection().client_id()
    killer = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    killer.client_kill_filter(_id=victim)
    killer.close()
