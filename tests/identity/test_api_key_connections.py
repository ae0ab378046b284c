"""Pinned connections on API keys: `connections` ({domain: connection id}) on create, PATCH and GET;
a pinned key's tool calls run on its connection, others on the domain's default."""

from __future__ import annotations

import pytest

from core.audit import system_actor
from core.models import AuditEntry
from identity.models import ApiKey
from tests.fakes.itdocs import FakeItdocs
from tests.helpers import assert_error, assert_ok
from tests.toolhub.support import assert_tool_ok, make_connection, make_credential
from toolhub.services.connections import connection_create

URL = "/api/v1/api-keys"
ORG_LIST = "/api/v1/tools/itdocs.organization.list/execute"


@pytest.fixture
def vendor(settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    with FakeItdocs() as fake:
        fake.add_organization("Acme Corp")
        yield fake


@pytest.fixture
def default_connection(tenant, vendor):
    make_credential(tenant, "itdocs-default", access_token=vendor.api_key)
    return make_connection(tenant, vendor.url, integration_id="itdocs-default", name="default")


@pytest.fixture
def own_connection(tenant, vendor, default_connection):
    """The agent's own itdocs connection: not the domain's default."""
    make_credential(tenant, "itdocs-agent", access_token=vendor.api_key)
    return make_connection(tenant, vendor.url, integration_id="itdocs-agent", name="agent's")


def create(client, **fields):
    body = {"name": "agent", "scopes": "tools:execute", "environment": "live"} | fields
    return client.post(URL, body, format="json")


def call(client_for, tenant, raw_key: str) -> dict:
    return assert_tool_ok(client_for(raw_key, tenant).post(ORG_LIST, {"input": {}}, format="json"))


def test_a_pinned_key_reaches_its_own_connection_and_an_unpinned_one_the_default(
    as_owner, client_for, tenant, own_connection, default_connection
):
    pinned = assert_ok(create(as_owner, connections={"itdocs": own_connection.public_id}))
    plain = assert_ok(create(as_owner, name="plain"))
    assert pinned["connections"] == {"itdocs": own_connection.public_id} and plain["connections"] == {}
    assert call(client_for, tenant, pinned["apiKey"])["connection_id"] == own_connection.public_id
    assert call(client_for, tenant, plain["apiKey"])["connection_id"] == default_connection.public_id


def test_a_pin_given_as_a_bare_uuid_is_stored_as_the_public_id(as_owner, own_connection):
    created = assert_ok(create(as_owner, connections={"itdocs": str(own_connection.id)}))
    assert created["connections"] == {"itdocs": own_connection.public_id}


def test_an_explicit_connection_id_still_wins_over_the_pin(
    as_owner, client_for, tenant, own_connection, default_connection
):
    raw = assert_ok(create(as_owner, connections={"itdocs": own_connection.public_id}))["apiKey"]
    body = {"input": {}, "connection_id": default_connection.public_id}
    answer = assert_tool_ok(client_for(raw, tenant).post(ORG_LIST, body, format="json"))
    assert answer["connection_id"] == default_connection.public_id


def test_a_pin_set_by_patch_applies_to_the_keys_next_call_and_shows_in_its_get(
    as_owner, client_for, tenant, own_connection, default_connection
):
    created = assert_ok(create(as_owner))
    assert call(client_for, tenant, created["apiKey"])["connection_id"] == default_connection.public_id
    pins = {"connections": {"itdocs": own_connection.public_id}}
    updated = assert_ok(as_owner.patch(f"{URL}/{created['id']}", pins, format="json"))
    assert updated["connections"] == pins["connections"] and updated["updatedBy"]
    assert call(client_for, tenant, created["apiKey"])["connection_id"] == own_connection.public_id
    assert assert_ok(as_owner.get(f"{URL}/{created['id']}"))["connections"] == pins["connections"]
    assert AuditEntry.objects.filter(action="API_KEY_UPDATED", resource_type="api_key").exists()
    cleared = assert_ok(as_owner.patch(f"{URL}/{created['id']}", {"connections": {}}, format="json"))
    assert cleared["connections"] == {}
    assert call(client_for, tenant, created["apiKey"])["connection_id"] == default_connection.public_id


def test_a_pinned_connection_switched_off_gives_way_to_the_default(
    as_owner, client_for, tenant, own_connection, default_connection
):
    raw = assert_ok(create(as_owner, connections={"itdocs": own_connection.public_id}))["apiKey"]
    as_owner.patch(f"/api/v1/connections/{own_connection.public_id}", {"status": "inactive"}, format="json")
    assert call(client_for, tenant, raw)["connection_id"] == default_connection.public_id


def test_pinning_another_tenants_connection_is_422_naming_the_field(as_owner, other_tenant, vendor):
    make_credential(other_tenant, "theirs", access_token=vendor.api_key)
    theirs = make_connection(other_tenant, vendor.url, integration_id="theirs")
    error = assert_error(create(as_owner, connections={"itdocs": theirs.public_id}), 422, "VALIDATION_ERROR")
    assert "connections.itdocs" in error["details"]
    assert not ApiKey.objects.exists()


def test_pinning_a_connection_of_another_domain_is_422_naming_the_field(as_owner, tenant, own_connection):
    knowledge = connection_create(
        tenant=tenant, actor=system_actor("tests"), name="kb", domain="knowledge", connector="knowledge"
    )
    error = assert_error(
        create(as_owner, connections={"itdocs": knowledge.public_id}), 422, "VALIDATION_ERROR"
    )
    assert "connections.itdocs" in error["details"]
    created = assert_ok(create(as_owner))
    response = as_owner.patch(
        f"{URL}/{created['id']}", {"connections": {"knowledge": own_connection.public_id}}, format="json"
    )
    assert "connections.knowledge" in assert_error(response, 422, "VALIDATION_ERROR")["details"]
    assert ApiKey.objects.get(id=created["id"]).connections == {}


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"connections": {"itdocs": "conn_nothing"}}, 422, "connections.itdocs"),
        ({"connections": "itdocs"}, 400, "connections"),
        ({}, 400, "connections"),
        ({"connections": {}, "name": "renamed"}, 400, "name"),
    ],
)
def test_bad_update_bodies_are_refused(as_owner, body, status, field):
    created = assert_ok(create(as_owner))
    error = assert_error(
        as_owner.patch(f"{URL}/{created['id']}", body, format="json"), status, "VALIDATION_ERROR"
    )
    assert field in error["details"]


def test_a_teammate_may_not_pin_and_another_tenant_sees_404(
    as_owner, as_teammate, as_outsider, own_connection
):
    created = assert_ok(create(as_owner))
    pins = {"connections": {"itdocs": own_connection.public_id}}
    assert_error(as_teammate.patch(f"{URL}/{created['id']}", pins, format="json"), 403, "FORBIDDEN")
    assert_error(as_outsider.patch(f"{URL}/{created['id']}", pins, format="json"), 404, "API_KEY_NOT_FOUND")
    assert ApiKey.objects.get(id=created["id"]).connections == {}


def test_the_console_checks_pins_like_the_api(client, root, tenant, other_tenant, own_connection, vendor):
    import json

    make_credential(other_tenant, "theirs", access_token=vendor.api_key)
    theirs = make_connection(other_tenant, vendor.url, integration_id="theirs")
    client.force_login(root)
    form = {"tenant": tenant.id, "name": "ops", "description": "", "scopes_text": "tools:execute"}
    form["environment"] = "live"
    refused = client.post(
        "/admin/identity/apikey/add/", form | {"connections": json.dumps({"itdocs": theirs.public_id})}
    )
    assert (
        refused.status_code == 200 and "No connection with this id in this tenant" in refused.content.decode()
    )
    assert not ApiKey.objects.exists()
    client.post(
        "/admin/identity/apikey/add/", form | {"connections": json.dumps({"itdocs": str(own_connection.id)})}
    )
    assert ApiKey.objects.get(name="ops").connections == {"itdocs": own_connection.public_id}
