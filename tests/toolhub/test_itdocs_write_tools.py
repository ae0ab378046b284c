"""The IT documentation write tools (a configuration's create, update and delete) against the fake
JSON:API platform, through the real client and POST /api/v1/tools/{key}/execute."""

from __future__ import annotations

import pytest

from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok
from toolhub.models import Approval

MEDIA_TYPE = "application/vnd.api+json"


def _run(client, tool, **body):
    return client.post(EXEC_URL.format(tool), body, format="json")


def _writes(fake):
    return [r for r in fake.received if r.method != "GET"]


def _create(client, fake, **input):
    fields = {
        "organization_id": fake.org_id,
        "name": "srv-02",
        "configuration_type_id": "1",
        "configuration_status_id": "1",
    }
    return _run(client, "itdocs.configuration.create", input=fields | input)


def test_it_creates_a_configuration(executor, itdocs_connection, itdocs_fake):
    data = assert_tool_ok(
        _create(executor, itdocs_fake, hostname="srv-02.acme.local", primary_ip="10.1.2.4")
    )["data"]
    assert data | {"id": ""} == {
        "id": "",
        "name": "srv-02",
        "organization_id": itdocs_fake.org_id,
        "organization_name": "Acme Corp",
        "hostname": "srv-02.acme.local",
        "primary_ip": "10.1.2.4",
        "type": "Server",
        "status": "Active",
        "manufacturer": None,
        "model": None,
        "serial_number": None,
        "notes": None,
        "archived": False,
        "updated_at": "2026-11-21T09:30:00.000Z",
    }
    assert data["id"] in itdocs_fake.configurations
    [sent] = _writes(itdocs_fake)
    assert (sent.method, sent.path) == ("POST", "/configurations")
    assert sent.headers["Content-Type"] == MEDIA_TYPE and sent.headers["x-api-key"] == itdocs_fake.api_key
    assert sent.json() == {
        "data": {
            "type": "configurations",
            "attributes": {
                "organization-id": int(itdocs_fake.org_id),
                "name": "srv-02",
                "configuration-type-id": 1,
                "configuration-status-id": 1,
                "hostname": "srv-02.acme.local",
                "primary-ip": "10.1.2.4",
            },
        }
    }


def test_a_taken_name_is_the_platforms_422_as_an_upstream_error(executor, itdocs_connection, itdocs_fake):
    error = assert_tool_error(_create(executor, itdocs_fake, name="srv-01"), 502, "UPSTREAM_ERROR")
    assert error["details"] == {
        "status": 422,
        "vendor_code": "Unprocessable Entity",
        "message": "Name has already been taken",
    }


@pytest.mark.parametrize(
    ("change", "path", "keyword"),
    [
        ({"organization_id": None}, "/input/organization_id", "required"),
        ({"organization_id": "acme"}, "/input/organization_id", "pattern"),
        ({"name": ""}, "/input/name", "minLength"),
        ({"primary_ip": "10.1.2"}, "/input/primary_ip", "anyOf"),
        ({"configuration_type_id": 1}, "/input/configuration_type_id", "type"),
        ({"color": "red"}, "/input", "additionalProperties"),
    ],
)
def test_bad_input_is_422_and_never_reaches_the_platform(
    executor, itdocs_connection, itdocs_fake, change, path, keyword
):
    fields = {
        "organization_id": itdocs_fake.org_id,
        "name": "srv-02",
        "configuration_type_id": "1",
        "configuration_status_id": "1",
    } | change
    input = {k: v for k, v in fields.items() if v is not None}
    error = assert_tool_error(
        _run(executor, "itdocs.configuration.create", input=input), 422, "INVALID_INPUT"
    )
    assert {"path": path, "keyword": keyword} in [
        {"path": e["path"], "keyword": e["keyword"]} for e in error["details"]["errors"]
    ]
    assert _writes(itdocs_fake) == []


def test_it_updates_only_the_fields_given(executor, itdocs_connection, itdocs_fake):
    config_id = itdocs_fake.config_id
    update = {"configuration_id": config_id, "fields": {"primary_ip": "10.1.2.9", "archived": True}}
    data = assert_tool_ok(_run(executor, "itdocs.configuration.update", input=update))["data"]
    assert (data["id"], data["name"], data["primary_ip"], data["archived"]) == (
        config_id,
        "srv-01",
        "10.1.2.9",
        True,
    )
    [sent] = _writes(itdocs_fake)
    assert (sent.method, sent.path, sent.headers["Content-Type"]) == (
        "PATCH",
        f"/configurations/{config_id}",
        MEDIA_TYPE,
    )
    assert sent.json() == {
        "data": {"type": "configurations", "attributes": {"primary-ip": "10.1.2.9", "archived": True}}
    }


def test_an_update_needs_at_least_one_known_field(executor, itdocs_connection, itdocs_fake):
    for fields, keyword in (({}, "minProperties"), ({"organization_name": "x"}, "additionalProperties")):
        response = _run(
            executor, "itdocs.configuration.update", input={"configuration_id": "5000", "fields": fields}
        )
        error = assert_tool_error(response, 422, "INVALID_INPUT")
        assert error["details"]["errors"][0] | {"message": ""} == {
            "path": "/input/fields",
            "keyword": keyword,
            "message": "",
        }
    assert _writes(itdocs_fake) == []


def test_updating_a_missing_configuration_is_an_upstream_404(executor, itdocs_connection, itdocs_fake):
    response = _run(
        executor, "itdocs.configuration.update", input={"configuration_id": "999", "fields": {"notes": "x"}}
    )
    error = assert_tool_error(response, 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 404 and error["details"]["vendor_code"] == "Record Not Found"


def _delete(client, config_id, key="delete-1"):
    return _run(
        client, "itdocs.configuration.delete", input={"configuration_id": config_id}, idempotency_key=key
    )


def _approve(client_for, approver, tenant, response):
    approval_id = assert_tool_error(response, 202, "APPROVAL_REQUIRED")["details"]["approval_id"]
    decided = client_for(approver, tenant).post(f"/api/v1/approvals/{approval_id}/approve", {}, format="json")
    assert_tool_ok(decided)


def test_a_delete_needs_approval_then_runs_once(
    client_for, tenant, approver, executor, itdocs_connection, itdocs_fake
):
    config_id = itdocs_fake.config_id
    _approve(client_for, approver, tenant, _delete(executor, config_id))
    assert _writes(itdocs_fake) == []

    data = assert_tool_ok(_delete(executor, config_id))["data"]
    assert data == {"configuration_id": config_id, "deleted": True}
    assert _delete(executor, config_id)["Idempotent-Replayed"] == "true"
    [sent] = _writes(itdocs_fake)
    assert (sent.method, sent.path) == ("DELETE", "/configurations")
    assert sent.json() == {"data": [{"type": "configurations", "attributes": {"id": int(config_id)}}]}
    assert config_id not in itdocs_fake.configurations
    assert Approval.objects.get().executed_at is not None


def test_deleting_a_missing_configuration_is_an_upstream_404(
    client_for, tenant, approver, executor, itdocs_connection, itdocs_fake
):
    _approve(client_for, approver, tenant, _delete(executor, "999"))
    error = assert_tool_error(_delete(executor, "999"), 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 404
    assert len(itdocs_fake.configurations) == 1


def test_a_dry_run_of_a_delete_reports_the_gate_and_calls_nothing(executor, itdocs_connection, itdocs_fake):
    body = {"input": {"configuration_id": "5000"}, "dry_run": True}
    data = assert_tool_ok(executor.post(EXEC_URL.format("itdocs.configuration.delete"), body, format="json"))[
        "data"
    ]
    assert (data["valid"], data["risk_level"], data["approval_required"]) == (True, "destructive", True)
    assert itdocs_fake.received == [] and Approval.objects.count() == 0


def test_the_write_tools_declare_their_risk(client_for, tenant, exec_key):
    client = client_for(exec_key, tenant)
    risks = {
        key: assert_tool_ok(client.get(f"/api/v1/tools/{key}"))["data"]["risk_level"]
        for key in (
            "itdocs.configuration.create",
            "itdocs.configuration.update",
            "itdocs.configuration.delete",
        )
    }
    assert risks == {
        "itdocs.configuration.create": "write",
        "itdocs.configuration.update": "write",
        "itdocs.configuration.delete": "destructive",
    }
