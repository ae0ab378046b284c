"""The hub's routing cache (toolhub.routing): a call after a warm one finds its connection and the
approval policy without the database, and any change to them applies to the very next call."""

from __future__ import annotations

from core.audit import system_actor
from tests.toolhub.support import assert_tool_ok, make_connection, make_credential
from toolhub.models import ApprovalPolicy, Connection
from toolhub.services.connections import connection_delete, connection_update

ORG_LIST = "/api/v1/tools/itdocs.organization.list/execute"


def call(executor, **body):
    return executor.post(ORG_LIST, {"input": {}} | body, format="json")


def test_a_connection_deactivated_while_cached_is_refused_at_once(executor, tenant, itdocs_connection):
    assert_tool_ok(call(executor))
    connection_update(
        tenant=tenant,
        connection=itdocs_connection,
        actor=system_actor("tests"),
        changes={"status": "inactive"},
    )
    assert call(executor).json()["error"]["code"] == "CONNECTION_NOT_FOUND"


def test_a_bulk_update_of_connections_applies_to_the_next_call(executor, itdocs_connection, itdocs_fake):
    assert_tool_ok(call(executor))
    Connection.objects.filter(id=itdocs_connection.id).update(status="inactive")
    assert call(executor).status_code == 404
    assert len(itdocs_fake.received) == 1


def test_a_deleted_connection_is_not_found_on_the_next_call(executor, tenant, itdocs_connection):
    assert_tool_ok(call(executor, connection_id=itdocs_connection.public_id))
    connection_delete(tenant=tenant, connection=itdocs_connection, actor=system_actor("tests"))
    response = call(executor, connection_id=itdocs_connection.public_id)
    assert response.json()["error"]["code"] == "CONNECTION_NOT_FOUND"


def test_a_new_default_connection_takes_the_next_call(executor, tenant, itdocs_connection, itdocs_fake):
    assert_tool_ok(call(executor))
    make_credential(tenant, "itdocs-second", access_token=itdocs_fake.api_key)
    second = make_connection(tenant, itdocs_fake.url, integration_id="itdocs-second", name="second")
    connection_update(
        tenant=tenant, connection=second, actor=system_actor("tests"), changes={"is_default": True}
    )
    assert call(executor).json()["connection_id"] == second.public_id


def test_a_policy_changed_while_cached_gates_the_next_call(executor, tenant, itdocs_connection, itdocs_fake):
    assert_tool_ok(call(executor, idempotency_key="first"))
    ApprovalPolicy.objects.create(tenant=tenant, always_gate=["itdocs.organization.*"])
    response = call(executor, idempotency_key="second")
    assert response.status_code == 202 and response.json()["error"]["code"] == "APPROVAL_REQUIRED"
    ApprovalPolicy.objects.filter(tenant=tenant).update(always_gate=[])
    assert_tool_ok(call(executor, idempotency_key="third"))
    assert len(itdocs_fake.received) == 2
