"""Connection health: the `connectionHealth` job and the test endpoint record each connection's
probe; automatic routing leaves an unhealthy connection out, a named one is still used and the
answer says it is unhealthy."""

from __future__ import annotations

import pytest

from core.models import JobRun
from core.tasks import run_job
from tests import factories
from tests.fakes.itdocs import FakeItdocs
from tests.helpers import assert_ok, assert_tool_error
from tests.toolhub.support import assert_tool_ok, make_connection, make_credential
from toolhub.models import Connection

CONNECTIONS = "/api/v1/connections"
ORG_LIST = "/api/v1/tools/itdocs.organization.list/execute"


@pytest.fixture
def spare_fake(loopback):
    with FakeItdocs(api_key="spare-key") as fake:
        fake.add_organization("Spare Org")
        yield fake


@pytest.fixture
def spare_connection(tenant, spare_fake):
    """A second itdocs connection of the tenant, not the domain's default."""
    make_credential(tenant, "itdocs-spare", access_token=spare_fake.api_key)
    return make_connection(tenant, spare_fake.url, integration_id="itdocs-spare", name="spare")


@pytest.fixture
def admin_client(client_for, owner, tenant):
    return client_for(owner, tenant)


def run_health_job() -> JobRun:
    run = JobRun.objects.create(job_name="connectionHealth")
    run_job.apply(args=[str(run.id)])
    run.refresh_from_db()
    return run


def break_vendor(fake) -> None:
    """The vendor stops accepting the connection's key: every request answers 401."""
    fake.api_key = "rotated-at-the-vendor"


def test_the_job_marks_a_failing_connection_unhealthy_and_counts_its_probes(
    itdocs_connection, spare_connection, itdocs_fake
):
    break_vendor(itdocs_fake)
    run = run_health_job()
    assert run.status == JobRun.Status.SUCCEEDED and run.items == 2
    failing = Connection.objects.get(id=itdocs_connection.id)
    assert failing.health == "unhealthy" and failing.health_error == "The vendor answered HTTP 401."
    assert failing.health_checked_at is not None
    assert Connection.objects.get(id=spare_connection.id).health == "healthy"


def test_inactive_connections_are_not_probed(tenant, itdocs_connection, itdocs_fake, admin_client):
    admin_client.patch(f"{CONNECTIONS}/{itdocs_connection.public_id}", {"status": "inactive"}, format="json")
    assert run_health_job().items == 0
    assert itdocs_fake.requests_to("^/organizations$") == []


def test_the_listing_and_the_single_get_show_the_last_check(
    admin_client, itdocs_connection, spare_connection, itdocs_fake
):
    listed = assert_tool_ok(admin_client.get(CONNECTIONS))["data"]["connections"]
    assert {c["health"] for c in listed} == {"unknown"}
    assert all(c["healthCheckedAt"] is None and c["healthError"] is None for c in listed)
    break_vendor(itdocs_fake)
    run_health_job()
    listed = {c["id"]: c for c in assert_tool_ok(admin_client.get(CONNECTIONS))["data"]["connections"]}
    failing, spare = listed[itdocs_connection.public_id], listed[spare_connection.public_id]
    assert failing["health"] == "unhealthy" and failing["healthError"] == "The vendor answered HTTP 401."
    assert failing["healthCheckedAt"] and failing["last_check"]["ok"] is False
    assert spare["health"] == "healthy" and spare["healthError"] is None
    single = assert_tool_ok(admin_client.get(f"{CONNECTIONS}/{spare_connection.public_id}"))["data"]
    assert single["health"] == "healthy" and single["healthCheckedAt"] == spare["healthCheckedAt"]


def test_the_health_error_never_carries_the_vendors_text(admin_client, itdocs_connection, itdocs_fake):
    from tests.fakes.server import Reply

    itdocs_fake.queue_reply(
        Reply(403, {"errors": [{"status": "403", "title": "key itdocs-key is not allowed"}]}), times=5
    )
    result = assert_tool_ok(admin_client.post(f"{CONNECTIONS}/{itdocs_connection.public_id}/test"))
    assert result["data"]["healthy"] is False
    shown = assert_tool_ok(admin_client.get(f"{CONNECTIONS}/{itdocs_connection.public_id}"))["data"]
    assert shown["health"] == "unhealthy" and shown["healthError"] == "The vendor answered HTTP 403."
    assert itdocs_fake.api_key not in str(shown)


def test_the_test_endpoint_records_health_and_routing_follows_it_at_once(
    admin_client, executor, itdocs_connection, itdocs_fake
):
    assert_tool_ok(executor.post(ORG_LIST, {"input": {}}, format="json"))  # the route is cached now
    break_vendor(itdocs_fake)
    result = assert_tool_ok(admin_client.post(f"{CONNECTIONS}/{itdocs_connection.public_id}/test"))
    assert result["data"]["healthy"] is False
    refused = assert_tool_error(
        executor.post(ORG_LIST, {"input": {}}, format="json"), 404, "CONNECTION_NOT_FOUND"
    )
    assert "unhealthy" in refused["message"] and refused["details"]["health"] == "unhealthy"
    itdocs_fake.api_key = "itdocs-key"
    assert assert_tool_ok(admin_client.post(f"{CONNECTIONS}/{itdocs_connection.public_id}/test"))["data"][
        "healthy"
    ]
    assert_tool_ok(executor.post(ORG_LIST, {"input": {}}, format="json"))


def test_an_unhealthy_default_with_nothing_else_to_route_to_is_refused_as_unhealthy(
    executor, itdocs_connection, spare_connection, itdocs_fake
):
    break_vendor(itdocs_fake)
    run_health_job()
    sent_before = len(itdocs_fake.received)
    error = assert_tool_error(
        executor.post(ORG_LIST, {"input": {}}, format="json"), 404, "CONNECTION_NOT_FOUND"
    )
    assert "unhealthy" in error["message"]
    assert error["details"]["connection_id"] == itdocs_connection.public_id
    assert len(itdocs_fake.received) == sent_before  # nothing was sent to the failing vendor


def test_an_unhealthy_pinned_connection_gives_way_to_the_default(
    client_for, tenant, itdocs_connection, spare_connection, spare_fake
):
    _key, raw = factories.make_api_key(
        tenant, ["tools:execute"], name="pinned", connections={"itdocs": spare_connection.public_id}
    )
    pinned = client_for(raw, tenant)
    assert assert_tool_ok(pinned.post(ORG_LIST, {"input": {}}, format="json"))["connection_id"] == (
        spare_connection.public_id
    )
    break_vendor(spare_fake)
    run_health_job()
    answer = assert_tool_ok(pinned.post(ORG_LIST, {"input": {}}, format="json"))
    assert answer["connection_id"] == itdocs_connection.public_id and "warnings" not in answer


def test_a_connection_named_explicitly_is_used_though_unhealthy_and_the_answer_says_so(
    executor, itdocs_connection, itdocs_fake
):
    break_vendor(itdocs_fake)
    run_health_job()
    itdocs_fake.api_key = "itdocs-key"  # the vendor is back before the next check
    body = {"input": {}, "connection_id": itdocs_connection.public_id}
    answer = assert_tool_ok(executor.post(ORG_LIST, body, format="json"))
    assert answer["connection_id"] == itdocs_connection.public_id
    assert answer["data"]["organizations"]
    [warning] = answer["warnings"]
    assert (
        warning["code"] == "CONNECTION_UNHEALTHY" and warning["connection_id"] == itdocs_connection.public_id
    )
    assert "HTTP 401" in warning["message"]


def test_a_healthy_answer_has_no_warnings(executor, itdocs_connection):
    body = {"input": {}, "connection_id": itdocs_connection.public_id}
    assert "warnings" not in assert_tool_ok(executor.post(ORG_LIST, body, format="json"))


def test_job_stats_show_the_probes_counted(client_for, tenant, itdocs_connection, spare_connection):
    run_health_job()
    root = factories.make_super_admin(username="root", email="root@platform.test")
    stats = assert_ok(client_for(root, tenant).get("/api/v1/admin/jobs/connectionHealth/stats"))
    assert stats["available"] is True and stats["schedule"]["cron"] == "*/5 * * * *"
    assert [e["itemsProcessed"] for e in stats["recentExecutions"]] == [2]
