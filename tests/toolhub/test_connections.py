"""/api/v1/connections: create, list, get, update, delete, test; defaults per domain; tenancy."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.db import connection as db_connection

from core.models import AuditEntry
from tests.helpers import assert_tool_error
from tests.toolhub.support import assert_tool_ok, make_connection, make_credential
from toolhub.models import Connection
from vault.models import Credential

URL = "/api/v1/connections"


@pytest.fixture
def admin_client(client_for, owner, tenant):
    return client_for(owner, tenant)


@pytest.fixture
def credential(tenant, itdocs_fake):
    return make_credential(tenant, "itdocs-prod-001", access_token=itdocs_fake.api_key)


def _body(fake, **over):
    return {
        "name": "IT docs",
        "domain": "itdocs",
        "connector": "itdocs",
        "base_url": fake.url,
        "integrationId": "itdocs-prod-001",
        **over,
    }


def test_it_creates_a_connection_that_becomes_the_domains_default(admin_client, credential, itdocs_fake):
    response = admin_client.post(URL, _body(itdocs_fake, settings={"read_timeout": 10}), format="json")
    data = assert_tool_ok(response)["data"]
    assert data["id"].startswith("conn_")
    assert data["is_default"] is True and data["status"] == "active"
    assert data["integrationId"] == "itdocs-prod-001" and data["settings"] == {"read_timeout": 10}
    stored = Connection.objects.get()
    assert stored.public_id == data["id"]
    assert AuditEntry.objects.filter(action="CONNECTION_CREATED", resource__id=data["id"]).exists()


def test_a_new_default_replaces_the_old_one(admin_client, tenant, credential, itdocs_fake):
    first = assert_tool_ok(admin_client.post(URL, _body(itdocs_fake), format="json"))["data"]
    second = assert_tool_ok(admin_client.post(URL, _body(itdocs_fake, name="b"), format="json"))["data"]
    assert second["is_default"] is False
    third = assert_tool_ok(
        admin_client.post(URL, _body(itdocs_fake, name="c", is_default=True), format="json")
    )
    assert third["data"]["is_default"] is True
    defaults = Connection.objects.filter(tenant=tenant, is_default=True)
    assert [c.public_id for c in defaults] == [third["data"]["id"]]
    patched = admin_client.patch(f"{URL}/{first['id']}", {"is_default": True}, format="json")
    assert assert_tool_ok(patched)["data"]["is_default"] is True
    assert Connection.objects.filter(tenant=tenant, is_default=True).count() == 1


def test_it_lists_gets_updates_and_deletes(admin_client, credential, itdocs_fake):
    created = assert_tool_ok(admin_client.post(URL, _body(itdocs_fake), format="json"))["data"]
    listed = assert_tool_ok(admin_client.get(URL + "?domain=itdocs"))["data"]
    assert [c["id"] for c in listed["connections"]] == [created["id"]]
    assert listed["pagination"]["total"] == 1
    assert assert_tool_ok(admin_client.get(URL + "?domain=wiki"))["data"]["connections"] == []
    assert assert_tool_ok(admin_client.get(f"{URL}/{created['id']}"))["data"]["name"] == "IT docs"
    updated = admin_client.patch(
        f"{URL}/{created['id']}", {"name": "Docs", "status": "inactive"}, format="json"
    )
    assert assert_tool_ok(updated)["data"]["status"] == "inactive"
    gone = admin_client.delete(f"{URL}/{created['id']}")
    assert assert_tool_ok(gone)["data"] == {"id": created["id"], "deleted": True}
    assert_tool_error(admin_client.get(f"{URL}/{created['id']}"), 404, "CONNECTION_NOT_FOUND")
    actions = set(AuditEntry.objects.values_list("action", flat=True))
    assert {"CONNECTION_UPDATED", "CONNECTION_DELETED"} <= actions


def test_the_test_endpoint_makes_a_real_call_to_the_vendor(admin_client, tenant, credential, itdocs_fake):
    created = assert_tool_ok(admin_client.post(URL, _body(itdocs_fake), format="json"))["data"]
    data = assert_tool_ok(admin_client.post(f"{URL}/{created['id']}/test"))["data"]
    assert data["healthy"] is True and data["error"] is None
    assert itdocs_fake.requests_to("^/organizations$")[0].headers["x-api-key"] == itdocs_fake.api_key
    itdocs_fake.api_key = "rotated-at-the-vendor"
    data = assert_tool_ok(admin_client.post(f"{URL}/{created['id']}/test"))["data"]
    assert data["healthy"] is False
    assert data["error"]["code"] == "UPSTREAM_ERROR" and data["error"]["details"]["status"] == 401
    listed = assert_tool_ok(admin_client.get(f"{URL}/{created['id']}"))["data"]
    assert listed["last_check"]["ok"] is False


@pytest.mark.parametrize(
    ("over", "status", "field"),
    [
        ({"domain": "crm"}, 422, "domain"),
        ({"connector": "wikispace"}, 422, "connector"),
        ({"base_url": "ftp://x"}, 422, "base_url"),
        ({"integrationId": "nobody-has-this"}, 422, "integrationId"),
        ({"settings": {"client_secret": "x"}}, 422, "settings"),
        ({"settings": {"read_timeout": 0}}, 422, "settings.read_timeout"),
        ({"name": 5}, 400, "name"),
        ({"is_default": "yes"}, 400, "is_default"),
    ],
)
def test_it_refuses_bad_fields(admin_client, credential, itdocs_fake, over, status, field):
    error = assert_tool_error(
        admin_client.post(URL, _body(itdocs_fake, **over), format="json"), status, "VALIDATION_ERROR"
    )
    assert field in error["details"]
    assert not Connection.objects.exists()


def test_a_missing_field_is_a_400(admin_client, credential):
    error = assert_tool_error(admin_client.post(URL, {"name": "x"}, format="json"), 400, "VALIDATION_ERROR")
    assert {"domain", "connector"} <= set(error["details"])


def test_a_vendor_connection_without_its_url_and_credential_is_a_400(admin_client, credential):
    body = {"name": "x", "domain": "itdocs", "connector": "itdocs"}
    error = assert_tool_error(admin_client.post(URL, body, format="json"), 400, "VALIDATION_ERROR")
    assert set(error["details"]) == {"base_url", "integrationId"}
    assert not Connection.objects.exists()


@pytest.mark.parametrize("method", ["post", "patch"])
def test_a_body_that_is_not_json_is_invalid_input(admin_client, tenant, credential, itdocs_fake, method):
    url = URL
    if method == "patch":
        url += "/" + make_connection(tenant, itdocs_fake.url, integration_id="itdocs-prod-001").public_id
    response = getattr(admin_client, method)(url, b'{"name": ', content_type="application/json")
    error = assert_tool_error(response, 422, "INVALID_INPUT")
    assert [(e["path"], e["keyword"]) for e in error["details"]["errors"]] == [("/", "json")]


def test_a_private_address_is_refused_outside_tests(admin_client, credential, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False
    body = _body(type("F", (), {"url": "http://169.254.169.254/latest"})())
    error = assert_tool_error(admin_client.post(URL, body, format="json"), 422, "VALIDATION_ERROR")
    assert "base_url" in error["details"]


def test_a_duplicate_name_is_a_conflict(admin_client, credential, itdocs_fake):
    admin_client.post(URL, _body(itdocs_fake), format="json")
    assert_tool_error(
        admin_client.post(URL, _body(itdocs_fake), format="json"), 409, "CONNECTION_ALREADY_EXISTS"
    )


def test_a_bad_status_on_update_is_a_validation_error(admin_client, credential, itdocs_fake):
    created = assert_tool_ok(admin_client.post(URL, _body(itdocs_fake), format="json"))["data"]
    response = admin_client.patch(f"{URL}/{created['id']}", {"status": "paused"}, format="json")
    assert_tool_error(response, 422, "VALIDATION_ERROR")


def test_viewers_may_look_but_not_change(client_for, tenant, teammate, credential, itdocs_fake):
    connection = make_connection(tenant, itdocs_fake.url, integration_id="itdocs-prod-001")
    client = client_for(teammate, tenant)
    assert_tool_ok(client.get(f"{URL}/{connection.public_id}"))
    assert_tool_error(client.post(URL, _body(itdocs_fake, name="x"), format="json"), 403, "FORBIDDEN")
    assert_tool_error(client.delete(f"{URL}/{connection.public_id}"), 403, "FORBIDDEN")
    assert Connection.objects.count() == 1


def test_another_tenants_connection_is_not_found_and_unchanged(
    client_for, outsider, other_tenant, tenant, credential, itdocs_fake
):
    connection = make_connection(tenant, itdocs_fake.url, integration_id="itdocs-prod-001")
    client = client_for(outsider, other_tenant)
    for response in (
        client.get(f"{URL}/{connection.public_id}"),
        client.patch(f"{URL}/{connection.public_id}", {"name": "mine"}, format="json"),
        client.delete(f"{URL}/{connection.public_id}"),
        client.post(f"{URL}/{connection.public_id}/test"),
    ):
        assert_tool_error(response, 404, "CONNECTION_NOT_FOUND")
    assert assert_tool_ok(client.get(URL))["data"]["connections"] == []
    assert Connection.objects.get().name == connection.name
    assert itdocs_fake.received == []


def test_a_malformed_connection_id_is_an_invalid_parameter(admin_client):
    assert_tool_error(admin_client.get(f"{URL}/conn_xyz"), 400, "INVALID_PARAMETER")


def test_the_bare_uuid_works_too(admin_client, tenant, credential, itdocs_fake):
    connection = make_connection(tenant, itdocs_fake.url, integration_id="itdocs-prod-001")
    assert assert_tool_ok(admin_client.get(f"{URL}/{connection.id}"))["data"]["id"] == connection.public_id


def test_the_create_body_documented_in_docs_toolhub_creates_a_connection(admin_client, tenant, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False  # as in production
    text = (Path(__file__).resolve().parents[2] / "docs" / "toolhub.md").read_text()
    example = re.search(r"```http\nPOST /api/v1/connections\n.*?\n\n(\{.*?\n\})\n```", text, re.S)
    assert example, "docs/toolhub.md shows no connection create body"
    body = json.loads(example.group(1))
    make_credential(tenant, body["integrationId"], access_token="tok")
    data = assert_tool_ok(admin_client.post(URL, body, format="json"))["data"]
    assert {k: data[k] for k in body} == body


def test_deleting_a_credential_counts_the_connections_that_use_it(
    admin_client, tenant, other_tenant, itdocs_connection
):
    make_credential(other_tenant, "itdocs-prod-001")
    make_connection(other_tenant, "https://itdocs.example.com", integration_id="itdocs-prod-001")
    credential = Credential.objects.get(tenant=tenant, integration_id="itdocs-prod-001")
    response = admin_client.delete(f"/api/v1/credentials/itdocs-prod-001/{credential.public_id}")
    assert response.status_code == 200
    assert response.json()["data"]["integrationsAffected"] == 2  # its own integration and one connection
    entry = AuditEntry.objects.get(tenant_id=tenant.id, action="CREDENTIAL_DELETED")
    assert entry.details["integrationsAffected"] == 2


def test_a_connection_deleted_while_its_probe_runs_answers_404(admin_client, tenant, credential, itdocs_fake):
    connection = make_connection(tenant, itdocs_fake.url, integration_id="itdocs-prod-001")

    def delete_first(execute, sql, params, many, context):
        if sql.startswith('UPDATE "toolhub_connection"') and "health" in sql:
            Connection.objects.filter(pk=connection.pk).delete()  # another request, as the probe ran
        return execute(sql, params, many, context)

    with db_connection.execute_wrapper(delete_first):
        response = admin_client.post(f"{URL}/{connection.public_id}/test")
    assert_tool_error(response, 404, "CONNECTION_NOT_FOUND")
    assert len(itdocs_fake.received) == 1 and not Connection.objects.exists()
