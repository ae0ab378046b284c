"""Credentials as the hub uses them come through a cache (vault.caches): whatever happens to a
credential between two calls, the second call uses the credential as it is now."""

from __future__ import annotations

from core.audit import system_actor
from tests.toolhub.support import assert_tool_ok
from vault.models import Credential
from vault.services.credentials import credential_delete, credential_rotate
from vault.services.dek import dek_rotation_run, dek_rotation_start

ORG_LIST = "/api/v1/tools/itdocs.organization.list/execute"


def call(executor):
    return executor.post(ORG_LIST, {"input": {}}, format="json")


def credential(tenant) -> Credential:
    return Credential.objects.get(tenant=tenant, integration_id="itdocs-prod-001", status="active")


def test_a_token_rotated_between_two_calls_is_sent_on_the_second(
    executor, tenant, itdocs_connection, itdocs_fake
):
    assert_tool_ok(call(executor))
    itdocs_fake.api_key = "rotated-key"
    credential_rotate(
        tenant=tenant,
        actor=system_actor("tests"),
        credential_id=credential(tenant).id,
        access_token="rotated-key",
    )
    assert_tool_ok(call(executor))


def test_a_credential_deactivated_in_bulk_stops_the_next_call(
    executor, tenant, itdocs_connection, itdocs_fake
):
    assert_tool_ok(call(executor))
    Credential.objects.filter(tenant=tenant).update(status="inactive")
    error = call(executor).json()["error"]
    assert (error["code"], error["details"]["reason"]) == ("CONNECTION_NOT_FOUND", "CREDENTIAL_INACTIVE")
    assert len(itdocs_fake.received) == 1


def test_a_deleted_credential_stops_the_next_call(executor, tenant, itdocs_connection, itdocs_fake):
    assert_tool_ok(call(executor))
    credential_delete(
        tenant=tenant, actor=system_actor("tests"), integration_id="itdocs-prod-001", credential_id=None
    )
    assert call(executor).json()["error"]["code"] == "CONNECTION_NOT_FOUND"


def test_calls_go_on_across_a_data_key_rotation(executor, tenant, itdocs_connection, itdocs_fake):
    assert_tool_ok(call(executor))
    rotation = dek_rotation_start(tenant=tenant, actor=system_actor("tests"))
    dek_rotation_run(rotation_id=rotation.id)
    assert credential(tenant).dek_version == rotation.to_version
    assert_tool_ok(call(executor))
