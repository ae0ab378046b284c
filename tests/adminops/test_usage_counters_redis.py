"""The usage counters' one-call Redis path (adminops.usage): the same counters, windows, first and
last use as the cache-API path. Runs where the cache is Redis (the services test run)."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.utils import timezone

from adminops.principals import Principal
from adminops.usage import (
    _RedisStore,
    _store,
    api_key_window_counts,
    month_label,
    tenant_calls,
    usage_record,
)

pytestmark = pytest.mark.skipif(
    not hasattr(getattr(cache, "client", None), "get_client"), reason="the cache is not Redis"
)


def test_it_counts_calls_windows_and_outcomes_in_one_call():
    assert isinstance(_store(), _RedisStore)
    key = Principal(kind="api_key", id="key-usage-test", name="k")
    for status in (200, 201, 404):
        usage_record(principal=key, tenant_id="tenant-usage-test", status=status, ip="10.0.0.9")
    assert api_key_window_counts("key-usage-test") == {"hourCount": 3, "dayCount": 3}
    assert tenant_calls("tenant-usage-test", month_label(timezone.now())) == 3
    total, ok, fail = _store().take(
        ["usage:ak:key-usage-test:n", "usage:ak:key-usage-test:ok", "usage:ak:key-usage-test:fail"]
    )
    assert (total, ok, fail) == (3, 2, 1)
    first, last = _store().read(["usage:ak:key-usage-test:first", "usage:ak:key-usage-test:last"])
    assert first < last.partition("|")[0] and last.endswith("|10.0.0.9")
    ttl = _store().client.ttl(
        cache.make_key("usage:ak:key-usage-test:h:" + timezone.now().strftime("%Y%m%d%H"))
    )
    assert 0 < ttl <= 7200


def test_redis_sends_no_reply_to_a_note_and_a_read_sees_every_note_sent_before_it():
    import select

    from adminops.usage import _unanswered

    key = Principal(kind="api_key", id="key-unanswered", name="k")
    for _ in range(20):
        usage_record(principal=key, tenant_id="tenant-unanswered", status=200, ip=None)
    assert api_key_window_counts("key-unanswered") == {"hourCount": 20, "dayCount": 20}
    readable, _, _ = select.select([_unanswered.connection._sock], [], [], 0.2)
    assert readable == []  # nothing came back for the 20 notes, nor after the read's settling


def test_counting_resumes_when_redis_drops_the_notes_connection():
    key = Principal(kind="api_key", id="key-dropped", name="k")
    usage_record(principal=key, tenant_id=None, status=200, ip=None)
    _store().client.client_kill_filter(_type="normal", skipme=True)  # Redis drops every other client
    for _ in range(3):  # the first notes after the drop may be lost (logged), not the request
        usage_record(principal=key, tenant_id=None, status=200, ip=None)
    before = api_key_window_counts("key-dropped")["hourCount"]
    usage_record(principal=key, tenant_id=None, status=200, ip=None)
    assert before >= 2 and api_key_window_counts("key-dropped")["hourCount"] == before + 1
