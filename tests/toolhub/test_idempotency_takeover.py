"""Taking over a call whose runner died (its lease ran out): a write the vendor may already have
received ends with a final OUTCOME_UNKNOWN error and no second vendor call; a call that died before
reaching the vendor, or a read, runs (once)."""

from __future__ import annotations

import base64
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from identity.models import ApiKey
from tests.fakes.wiki_tools import FakeWikiTools
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok, make_connection, make_credential
from toolhub.connectors import upstream_lease
from toolhub.inputs import fingerprint
from toolhub.models import Connection, IdempotencyRecord
from toolhub.selectors import tool_get
from toolhub.services.idempotency import (
    idempotency_claim,
    idempotency_release,
    idempotency_upstream_start,
    lease_margin,
)

CREATE = "wiki.page.create"


@pytest.fixture
def wiki(loopback, tenant):
    with FakeWikiTools() as fake:
        fake.add_user("bot@acme.test", "api-token")
        fake.space = fake.add_space("ENG", "Engineering")
        pair = base64.b64encode(b"bot@acme.test:api-token").decode()
        make_credential(tenant, "wiki-prod-001", auth_type="basic_auth", access_token=pair)
        make_connection(
            tenant, fake.instance_url, integration_id="wiki-prod-001", domain="wiki", connector="wikispace"
        )
        yield fake


def _input(wiki) -> dict:
    return {"space_id": str(wiki.space.id), "title": "Postmortem", "body": "<p>what happened</p>"}


def _died(tenant, tool_key: str, input: dict, key: str, *, reached_vendor: bool) -> IdempotencyRecord:
    """What a process killed mid-call leaves: a running record (marked if its request had left for
    the vendor) whose lease has run out."""
    agent = ApiKey.objects.get(name="agent")
    claim = idempotency_claim(
        tenant=tenant,
        principal_key=f"api_key:{agent.id}",
        key=key,
        fingerprint=fingerprint(tool_key=tool_key, input=input, connection_id=None),
        tool_key=tool_key,
        lease=timedelta(seconds=60),
    )
    if reached_vendor:
        assert idempotency_upstream_start(record=claim.record)
    IdempotencyRecord.objects.filter(id=claim.record.id).update(
        lease_until=timezone.now() - timedelta(seconds=1)
    )
    return claim.record


def test_a_write_that_reached_the_vendor_is_not_sent_again(executor, tenant, wiki):
    _died(tenant, CREATE, _input(wiki), "crashed", reached_vendor=True)
    body = {"input": _input(wiki), "idempotency_key": "crashed"}
    first = executor.post(EXEC_URL.format(CREATE), body, format="json")
    error = assert_tool_error(first, 502, "UPSTREAM_ERROR")
    assert error["details"] == {
        "status": None,
        "vendor_code": "OUTCOME_UNKNOWN",
        "message": "the first attempt was interrupted after the request reached the vendor; "
        "check the vendor before retrying with a new key",
    }
    assert wiki.requests_to("/pages$") == []
    again = executor.post(EXEC_URL.format(CREATE), body, format="json")
    assert (again.status_code, again.content) == (502, first.content)
    assert again["Idempotent-Replayed"] == "true"
    record = IdempotencyRecord.objects.get(key="crashed")
    assert record.status == "completed" and json.loads(bytes(record.response_body)) == first.json()


def test_a_write_that_died_before_the_vendor_runs_once(executor, tenant, wiki):
    _died(tenant, CREATE, _input(wiki), "early", reached_vendor=False)
    body = {"input": _input(wiki), "idempotency_key": "early"}
    first = executor.post(EXEC_URL.format(CREATE), body, format="json")
    assert assert_tool_ok(first)["data"]["title"] == "Postmortem"
    again = executor.post(EXEC_URL.format(CREATE), body, format="json")
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"
    assert len(wiki.requests_to("/pages$")) == 1
    assert IdempotencyRecord.objects.get(key="early").upstream_started_at is not None


def test_a_read_that_reached_the_vendor_runs_again(executor, tenant, wiki):
    page = wiki.add_page(wiki.space, "Runbook", "<p>steps</p>")
    args = {"page_id": page["id"]}
    _died(tenant, "wiki.page.get", args, "read-crashed", reached_vendor=True)
    response = executor.post(
        EXEC_URL.format("wiki.page.get"), {"input": args, "idempotency_key": "read-crashed"}, format="json"
    )
    assert assert_tool_ok(response)["data"]["title"] == "Runbook"
    assert len(wiki.requests_to("/pages/")) == 1


def test_a_holder_whose_key_was_taken_over_neither_calls_nor_releases(executor, tenant, wiki):
    record = _died(tenant, CREATE, _input(wiki), "slow", reached_vendor=False)
    # A repeat takes the key over and is now running it itself (still before its vendor call).
    agent = ApiKey.objects.get(name="agent")
    claim = idempotency_claim(
        tenant=tenant,
        principal_key=f"api_key:{agent.id}",
        key="slow",
        fingerprint=record.fingerprint,
        tool_key=CREATE,
        lease=timedelta(seconds=60),
    )
    assert claim.fresh and not claim.interrupted
    # The slow first holder wakes up: it may not mark (so it does not call) nor free the key.
    assert not idempotency_upstream_start(record=record)
    idempotency_release(record=record)
    taken = IdempotencyRecord.objects.get(id=record.id)
    assert taken.status == "running" and taken.upstream_started_at is None
    assert idempotency_upstream_start(record=claim.record)


def test_a_write_lease_counts_one_attempt_and_the_margin_comes_from_settings(tenant, wiki, settings):
    connection = Connection.objects.get(tenant=tenant)
    connection.settings = {"connect_timeout": 1, "read_timeout": 3}
    assert upstream_lease(connection, tool_get(key=CREATE)) == timedelta(seconds=4)
    assert upstream_lease(connection, tool_get(key="wiki.page.get")) == timedelta(seconds=16)
    settings.TOOLHUB_LEASE_MARGIN_SECONDS = 2
    assert lease_margin() == timedelta(seconds=2)
