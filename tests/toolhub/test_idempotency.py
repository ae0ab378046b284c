"""Idempotency keys on execute: replay byte for byte, reuse with another request, a call in flight,
retention, and the concurrent case on PostgreSQL."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
import requests
from django.db import connection as db_connection
from django.utils import timezone

from identity.models import ApiKey
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok
from toolhub.models import ExecutionRecord, IdempotencyRecord
from toolhub.services.idempotency import idempotency_claim

ORG_LIST = EXEC_URL.format("itdocs.organization.list")


def test_a_repeat_replays_the_first_response_byte_for_byte(executor, itdocs_connection, itdocs_fake):
    body = {"input": {"name": "Acme Corp"}, "idempotency_key": "order-1"}
    first = executor.post(ORG_LIST, body, format="json")
    itdocs_fake.add_organization("Acme Corp")  # the vendor changes meanwhile: the replay must not
    again = executor.post(ORG_LIST, body, format="json")
    assert_tool_ok(first)
    assert again.status_code == 200
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert not first.has_header("Idempotent-Replayed")
    assert len(itdocs_fake.requests_to("^/organizations$")) == 1


def test_the_idempotency_key_header_works_like_the_field(executor, itdocs_connection, itdocs_fake):
    first = executor.post(ORG_LIST, {"input": {}}, format="json", HTTP_IDEMPOTENCY_KEY="hdr-1")
    again = executor.post(ORG_LIST, {"input": {}, "idempotency_key": "hdr-1"}, format="json")
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"
    assert len(itdocs_fake.received) == 1


def test_header_and_field_that_differ_are_invalid_input(executor, itdocs_connection):
    response = executor.post(
        ORG_LIST, {"input": {}, "idempotency_key": "a"}, format="json", HTTP_IDEMPOTENCY_KEY="b"
    )
    assert_tool_error(response, 422, "INVALID_INPUT")


def test_a_vendor_error_is_replayed_too(executor, itdocs_connection, itdocs_fake):
    url = EXEC_URL.format("itdocs.configuration.get")
    body = {"input": {"configuration_id": "404"}, "idempotency_key": "missing-1"}
    first = executor.post(url, body, format="json")
    again = executor.post(url, body, format="json")
    assert_tool_error(first, 502, "UPSTREAM_ERROR")
    assert (again.status_code, again.content) == (502, first.content)
    assert len(itdocs_fake.received) == 1


def test_a_replayed_error_is_recorded_as_replayed(executor, itdocs_connection, itdocs_fake):
    url = EXEC_URL.format("itdocs.configuration.get")
    body = {"input": {"configuration_id": "404"}, "idempotency_key": "missing-2"}
    first = executor.post(url, body, format="json")
    again = executor.post(url, body, format="json")
    records = {r.request_id: r for r in ExecutionRecord.objects.all()}
    original, replay = records[first["X-Request-ID"]], records[again["X-Request-ID"]]
    assert (original.outcome, original.http_status, original.error_code) == ("error", 502, "UPSTREAM_ERROR")
    assert (replay.outcome, replay.http_status, replay.error_code) == ("replayed", 502, "UPSTREAM_ERROR")


def test_reusing_a_key_for_another_request_is_refused(executor, itdocs_connection, itdocs_fake):
    executor.post(ORG_LIST, {"input": {"name": "Acme Corp"}, "idempotency_key": "k"}, format="json")
    response = executor.post(ORG_LIST, {"input": {"name": "Globex"}, "idempotency_key": "k"}, format="json")
    assert_tool_error(response, 422, "IDEMPOTENCY_KEY_REUSED")
    assert len(itdocs_fake.received) == 1


def test_keys_are_scoped_to_the_principal(client_for, tenant, executor, itdocs_connection, itdocs_fake):
    from tests import factories

    _key, other_raw = factories.make_api_key(tenant, ["tools:execute"])
    executor.post(ORG_LIST, {"input": {"name": "Acme Corp"}, "idempotency_key": "shared"}, format="json")
    other = client_for(other_raw, tenant).post(
        ORG_LIST, {"input": {"name": "Globex"}, "idempotency_key": "shared"}, format="json"
    )
    assert assert_tool_ok(other)["data"]["organizations"][0]["name"] == "Globex"


def test_a_repeat_while_the_first_call_runs_is_in_progress(executor, tenant, itdocs_connection, itdocs_fake):
    from toolhub.inputs import fingerprint

    key = ApiKey.objects.get(name="agent")
    # The first call has claimed the key and is waiting on the vendor.
    idempotency_claim(
        tenant=tenant,
        principal_key=f"api_key:{key.id}",
        key="busy",
        fingerprint=fingerprint(tool_key="itdocs.organization.list", input={}, connection_id=None),
        tool_key="itdocs.organization.list",
        lease=timedelta(seconds=60),
    )
    response = executor.post(ORG_LIST, {"input": {}, "idempotency_key": "busy"}, format="json")
    assert_tool_error(response, 409, "IDEMPOTENCY_IN_PROGRESS")
    assert response["Retry-After"] == "1"
    assert itdocs_fake.received == []


def test_a_call_whose_runner_died_is_taken_over_after_its_lease(executor, itdocs_connection, itdocs_fake):
    executor.post(ORG_LIST, {"input": {}, "idempotency_key": "died"}, format="json")
    IdempotencyRecord.objects.filter(key="died").update(
        status="running", lease_until=timezone.now() - timedelta(seconds=1)
    )
    assert_tool_ok(executor.post(ORG_LIST, {"input": {}, "idempotency_key": "died"}, format="json"))
    assert len(itdocs_fake.received) == 2


def test_a_vendor_rate_limit_leaves_the_key_free(executor, itdocs_connection, itdocs_fake):
    itdocs_fake.throttle_next = 1
    body = {"input": {}, "idempotency_key": "throttled"}
    assert_tool_error(executor.post(ORG_LIST, body, format="json"), 429, "RATE_LIMITED")
    assert_tool_ok(executor.post(ORG_LIST, body, format="json"))


def test_a_dry_run_consumes_no_key(executor, itdocs_connection, itdocs_fake):
    executor.post(ORG_LIST, {"input": {}, "idempotency_key": "d", "dry_run": True}, format="json")
    assert not IdempotencyRecord.objects.exists()
    real = executor.post(ORG_LIST, {"input": {}, "idempotency_key": "d"}, format="json")
    assert_tool_ok(real)
    assert not real.has_header("Idempotent-Replayed")


def test_records_past_retention_are_cleaned_up_and_free_their_key(executor, itdocs_connection, itdocs_fake):
    from toolhub.services.cleanup import toolhub_cleanup

    executor.post(ORG_LIST, {"input": {}, "idempotency_key": "old"}, format="json")
    executor.post(ORG_LIST, {"input": {}, "idempotency_key": "new"}, format="json")
    IdempotencyRecord.objects.filter(key="old").update(expires_at=timezone.now() - timedelta(seconds=1))
    assert toolhub_cleanup() == 1
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["new"]
    again = executor.post(ORG_LIST, {"input": {}, "idempotency_key": "old"}, format="json")
    assert not again.has_header("Idempotent-Replayed")


def test_the_cleanup_job_removes_expired_records(tenant, executor, itdocs_connection):
    from core.jobs import job_execute
    from core.models import JobRun

    executor.post(ORG_LIST, {"input": {}, "idempotency_key": "gone"}, format="json")
    IdempotencyRecord.objects.update(expires_at=timezone.now() - timedelta(hours=1))
    job_execute(JobRun.objects.create(job_name="cleanupExpiredSessions"))
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_fifty_concurrent_calls_with_one_key_reach_the_vendor_once(
    live_server, tenant, exec_key, itdocs_connection, itdocs_fake
):
    if db_connection.vendor != "postgresql":
        pytest.skip(
            "needs PostgreSQL: SQLite serialises writers, so the race this guards against cannot happen"
        )
    itdocs_fake.latency = 0.3  # keep the first call in flight while the others arrive
    headers = {"Authorization": f"Bearer {exec_key}", "x-tenantid": str(tenant.id)}
    body = {"input": {"name": "Acme Corp"}, "idempotency_key": "stampede"}

    def call(_):
        return requests.post(live_server.url + ORG_LIST, json=body, headers=headers, timeout=30)

    with ThreadPoolExecutor(max_workers=50) as pool:
        responses = list(pool.map(call, range(50)))
    assert len(itdocs_fake.requests_to("^/organizations$")) == 1
    statuses = sorted({r.status_code for r in responses})
    assert set(statuses) <= {200, 409}, statuses
    winners = [r for r in responses if r.status_code == 200 and "Idempotent-Replayed" not in r.headers]
    assert len(winners) == 1
    assert all(
        r.json()["error"]["code"] == "IDEMPOTENCY_IN_PROGRESS" for r in responses if r.status_code == 409
    )
    replay = call(0)
    assert replay.content == winners[0].content and replay.headers["Idempotent-Replayed"] == "true"
