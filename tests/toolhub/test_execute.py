"""POST /api/v1/tools/{tool_key}/execute: every code of the tool table on a real request, against
a loopback fake of the vendor."""

from __future__ import annotations

import pytest

from core.models import AuditEntry
from tests import factories
from tests.helpers import assert_tool_error
from tests.toolhub.support import EXEC_URL, assert_tool_ok, make_connection, make_credential
from toolhub.models import Connection, ExecutionRecord

ORG_LIST = EXEC_URL.format("itdocs.organization.list")
CONFIG_GET = EXEC_URL.format("itdocs.configuration.get")


def test_it_runs_a_tool_on_the_domain_default_connection(executor, itdocs_connection, itdocs_fake):
    response = executor.post(ORG_LIST, {"input": {"name": "Acme Corp"}}, format="json")
    body = assert_tool_ok(response)
    assert set(body) == {"success", "data", "connection_id", "duration_ms", "request_id"}
    assert body["connection_id"] == itdocs_connection.public_id
    assert isinstance(body["duration_ms"], int)
    assert body["request_id"] == response["X-Request-ID"]
    assert body["data"]["total_count"] == 1
    assert body["data"]["organizations"][0]["name"] == "Acme Corp"
    sent = itdocs_fake.requests_to(r"^/organizations$")[0]
    assert sent.query["filter[name]"] == ["Acme Corp"]
    assert sent.headers["x-api-key"] == itdocs_fake.api_key
    for header in ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"):
        assert response[header]


def test_it_runs_on_the_connection_named_in_the_body(executor, tenant, itdocs_connection, itdocs_fake):
    make_credential(tenant, "itdocs-eu-002", access_token=itdocs_fake.api_key)
    other = make_connection(tenant, itdocs_fake.url, integration_id="itdocs-eu-002", name="eu")
    body = assert_tool_ok(
        executor.post(
            CONFIG_GET,
            {"input": {"configuration_id": itdocs_fake.config_id}, "connection_id": other.public_id},
            format="json",
        )
    )
    assert body["connection_id"] == other.public_id
    assert body["data"]["primary_ip"] == "10.1.2.3"
    assert body["data"]["organization_name"] == "Acme Corp"


def test_it_answers_unauthorized_without_a_valid_key(client_for, tenant, itdocs_connection):
    response = client_for("ak_live_not-a-real-key", tenant).post(ORG_LIST, {"input": {}}, format="json")
    assert_tool_error(response, 401, "UNAUTHORIZED")


def test_it_answers_tool_not_found_for_an_unknown_tool(executor, itdocs_connection):
    error = assert_tool_error(
        executor.post(EXEC_URL.format("itsm.nothing.here"), {"input": {}}, format="json"),
        404,
        "TOOL_NOT_FOUND",
    )
    assert error["details"]["tool_key"] == "itsm.nothing.here"


def test_it_forbids_a_key_without_the_execute_scope(client_for, tenant, itdocs_connection, itdocs_fake):
    _key, raw = factories.make_api_key(tenant, ["tools:read"])
    response = client_for(raw, tenant).post(ORG_LIST, {"input": {}}, format="json")
    assert_tool_error(response, 403, "FORBIDDEN")
    assert itdocs_fake.received == []


def test_it_forbids_a_tool_outside_the_keys_tool_patterns(client_for, tenant, itdocs_connection, itdocs_fake):
    _key, raw = factories.make_api_key(tenant, ["tools:execute"], tool_patterns=["itdocs.configuration.*"])
    client = client_for(raw, tenant)
    assert_tool_error(client.post(ORG_LIST, {"input": {}}, format="json"), 403, "FORBIDDEN")
    allowed = client.post(CONFIG_GET, {"input": {"configuration_id": itdocs_fake.config_id}}, format="json")
    assert_tool_ok(allowed)


def test_a_signed_in_user_cannot_execute_tools(client_for, tenant, owner, itdocs_connection):
    assert_tool_error(
        client_for(owner, tenant).post(ORG_LIST, {"input": {}}, format="json"), 403, "FORBIDDEN"
    )


def test_it_answers_connection_not_found_without_a_default(executor, itdocs_fake):
    error = assert_tool_error(
        executor.post(ORG_LIST, {"input": {}}, format="json"), 404, "CONNECTION_NOT_FOUND"
    )
    assert "itdocs" in error["message"]


def test_an_inactive_connection_is_not_found(executor, itdocs_connection, itdocs_fake):
    Connection.objects.filter(id=itdocs_connection.id).update(status="inactive")
    assert_tool_error(executor.post(ORG_LIST, {"input": {}}, format="json"), 404, "CONNECTION_NOT_FOUND")
    assert itdocs_fake.received == []


def test_another_tenants_connection_is_not_found(executor, other_tenant, itdocs_connection, itdocs_fake):
    make_credential(other_tenant, "theirs", access_token=itdocs_fake.api_key)
    theirs = make_connection(other_tenant, itdocs_fake.url, integration_id="theirs")
    response = executor.post(ORG_LIST, {"input": {}, "connection_id": theirs.public_id}, format="json")
    assert_tool_error(response, 404, "CONNECTION_NOT_FOUND")
    assert itdocs_fake.received == []


def test_a_connection_whose_credential_is_gone_is_not_found(executor, tenant, itdocs_connection, itdocs_fake):
    from vault.models import Credential

    Credential.objects.filter(integration_id="itdocs-prod-001").update(status="inactive")
    error = assert_tool_error(
        executor.post(ORG_LIST, {"input": {}}, format="json"), 404, "CONNECTION_NOT_FOUND"
    )
    assert error["details"]["reason"] == "CREDENTIAL_INACTIVE"
    assert itdocs_fake.received == []


def test_it_reports_every_input_error_with_path_keyword_and_message(executor, itdocs_connection, itdocs_fake):
    response = executor.post(
        ORG_LIST, {"input": {"page": 0, "page_size": "ten", "colour": "red"}}, format="json"
    )
    error = assert_tool_error(response, 422, "INVALID_INPUT")
    found = {(e["path"], e["keyword"]) for e in error["details"]["errors"]}
    assert found == {
        ("/input/page", "minimum"),
        ("/input/page_size", "type"),
        ("/input", "additionalProperties"),
    }
    assert all(e["message"] for e in error["details"]["errors"])
    assert itdocs_fake.received == []


def test_a_missing_required_member_points_at_the_member(executor, itdocs_connection):
    error = assert_tool_error(executor.post(CONFIG_GET, {"input": {}}, format="json"), 422, "INVALID_INPUT")
    assert error["details"]["errors"] == [
        {
            "path": "/input/configuration_id",
            "keyword": "required",
            "message": "'configuration_id' is a required property",
        }
    ]


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({}, "/input"),
        ({"input": []}, "/input"),
        ({"input": {}, "dry_run": "yes"}, "/dry_run"),
        ({"input": {}, "connection_id": 7}, "/connection_id"),
        ({"input": {}, "idempotency_key": "has space"}, "/idempotency_key"),
        ({"input": {}, "extra": 1}, "/"),
        ({"input": {"name\u0000": "x"}}, "/input"),
        ({"input": {"name": ["a\u0000b"]}}, "/input"),
    ],
)
def test_a_malformed_body_is_invalid_input(executor, itdocs_connection, body, path):
    error = assert_tool_error(executor.post(ORG_LIST, body, format="json"), 422, "INVALID_INPUT")
    assert path in {e["path"] for e in error["details"]["errors"]}


@pytest.mark.parametrize("body", [b"{not json", b"\xff\xfe", b"[NaN]", b"[" * 40 + b"]" * 40])
def test_a_body_that_is_not_json_is_invalid_input(executor, itdocs_connection, body):
    response = executor.generic("POST", ORG_LIST, body, content_type="application/json")
    error = assert_tool_error(response, 422, "INVALID_INPUT")
    assert [(e["path"], e["keyword"]) for e in error["details"]["errors"]] == [("/", "json")]


def test_a_vendor_error_is_an_upstream_error_with_the_vendors_status_and_message(executor, itdocs_connection):
    response = executor.post(CONFIG_GET, {"input": {"configuration_id": "999"}}, format="json")
    error = assert_tool_error(response, 502, "UPSTREAM_ERROR")
    assert error["details"]["status"] == 404
    assert error["details"]["vendor_code"] == "Record Not Found"
    assert "Couldn't find Configuration" in error["details"]["message"]


def test_a_vendor_timeout_is_an_upstream_error_504(executor, tenant, itdocs_fake):
    make_credential(tenant, "slow", access_token=itdocs_fake.api_key)
    make_connection(tenant, itdocs_fake.url, integration_id="slow", settings={"read_timeout": 0.3})
    itdocs_fake.latency = 1.0
    error = assert_tool_error(executor.post(ORG_LIST, {"input": {}}, format="json"), 504, "UPSTREAM_ERROR")
    assert error["details"]["status"] is None


def test_a_vendor_rate_limit_is_rate_limited_from_upstream(executor, itdocs_connection, itdocs_fake):
    itdocs_fake.throttle_next = 1
    response = executor.post(ORG_LIST, {"input": {}}, format="json")
    error = assert_tool_error(response, 429, "RATE_LIMITED")
    assert error["details"]["source"] == "upstream"
    assert response["Retry-After"] == "60"


def test_read_tools_retry_a_briefly_throttling_vendor(executor, itdocs_connection, itdocs_fake):
    itdocs_fake.throttle_next, itdocs_fake.retry_after = 2, "0"
    assert_tool_ok(executor.post(ORG_LIST, {"input": {}}, format="json"))
    assert len(itdocs_fake.requests_to(r"^/organizations$")) == 3


def test_the_hub_rate_limit_answers_rate_limited_in_the_tool_envelope(executor, itdocs_connection, settings):
    settings.RATE_LIMIT_PER_KEY = "2/m"
    for _ in range(2):
        assert_tool_ok(executor.post(ORG_LIST, {"input": {}}, format="json"))
    response = executor.post(ORG_LIST, {"input": {}}, format="json")
    error = assert_tool_error(response, 429, "RATE_LIMITED")
    assert error["details"]["source"] == "hub"
    assert int(response["Retry-After"]) >= 1
    assert response["X-RateLimit-Remaining"] == "0"


def test_an_output_that_breaks_the_schema_is_an_upstream_error(executor, itdocs_connection, itdocs_fake):
    itdocs_fake.configurations[itdocs_fake.config_id]["id"] = ""
    response = executor.post(
        CONFIG_GET, {"input": {"configuration_id": itdocs_fake.config_id}}, format="json"
    )
    error = assert_tool_error(response, 502, "UPSTREAM_ERROR")
    assert "output schema" in error["message"]


def test_every_call_leaves_an_execution_record_and_executions_are_audited(
    executor, itdocs_connection, itdocs_fake
):
    ok = executor.post(CONFIG_GET, {"input": {"configuration_id": itdocs_fake.config_id}}, format="json")
    bad = executor.post(CONFIG_GET, {"input": {}}, format="json")
    records = {r.request_id: r for r in ExecutionRecord.objects.all()}
    first, second = records[ok["X-Request-ID"]], records[bad["X-Request-ID"]]
    assert (first.outcome, first.http_status, first.error_code) == ("success", 200, "")
    assert first.input_redacted == {"configuration_id": itdocs_fake.config_id}
    assert first.connection_ref == itdocs_connection.public_id
    assert (second.outcome, second.http_status, second.error_code) == ("error", 422, "INVALID_INPUT")
    audited = AuditEntry.objects.filter(action="TOOL_EXECUTED")
    assert [a.request_id for a in audited] == [ok["X-Request-ID"]]
    assert audited[0].resource["id"] == "itdocs.configuration.get"


# ---- what the fast path of a call must keep (connections kept alive, the credential counted)


def _config_get(executor, itdocs_fake, **body):
    return executor.post(
        CONFIG_GET, {"input": {"configuration_id": itdocs_fake.config_id}, **body}, format="json"
    )


def test_consecutive_calls_on_a_connection_reuse_its_upstream_connection(
    executor, tenant, itdocs_connection, itdocs_fake
):
    for _ in range(3):
        assert_tool_ok(_config_get(executor, itdocs_fake))
    assert len({r.peer for r in itdocs_fake.received}) == 1
    make_credential(tenant, "itdocs-eu-002", access_token=itdocs_fake.api_key)
    other = make_connection(tenant, itdocs_fake.url, integration_id="itdocs-eu-002", name="eu")
    assert_tool_ok(_config_get(executor, itdocs_fake, connection_id=other.public_id))
    assert len({r.peer for r in itdocs_fake.received}) == 2  # never a connection of another one


def test_a_rotated_key_is_sent_on_the_next_call_over_the_kept_connection(
    executor, tenant, itdocs_connection, itdocs_fake
):
    from core.audit import system_actor
    from vault.models import Credential
    from vault.services.credentials import credential_rotate

    assert_tool_ok(_config_get(executor, itdocs_fake))
    credential = Credential.objects.get(tenant=tenant, integration_id="itdocs-prod-001")
    credential_rotate(
        tenant=tenant, actor=system_actor("tests"), credential_id=credential.id, access_token="rotated-key"
    )
    itdocs_fake.api_key = "rotated-key"
    assert_tool_ok(_config_get(executor, itdocs_fake))
    first, second = itdocs_fake.received
    assert first.peer == second.peer and second.headers["x-api-key"] == "rotated-key"


def test_each_call_counts_one_access_of_its_credential(executor, tenant, itdocs_connection, itdocs_fake):
    from vault.models import Credential

    for _ in range(2):
        assert_tool_ok(_config_get(executor, itdocs_fake))
    credential = Credential.objects.get(tenant=tenant, integration_id="itdocs-prod-001")
    last = ExecutionRecord.objects.latest("created_at")
    assert credential.access_count == 2 and credential.last_accessed_at == last.created_at
    assert set(ExecutionRecord.objects.values_list("credential_used", flat=True)) == {credential.id}


def test_a_call_counts_its_credential_once_however_the_vendor_answers(
    executor, tenant, itdocs_connection, itdocs_fake
):
    from vault.models import Credential

    assert_tool_error(
        _config_get(executor, itdocs_fake, input={"configuration_id": "999"}), 502, "UPSTREAM_ERROR"
    )
    itdocs_fake.throttle_next = 1
    assert_tool_error(executor.post(ORG_LIST, {"input": {}}, format="json"), 429, "RATE_LIMITED")
    assert_tool_ok(_config_get(executor, itdocs_fake, idempotency_key="counted-once"))
    assert_tool_ok(_config_get(executor, itdocs_fake, idempotency_key="counted-once"))  # a replay: no use
    credential = Credential.objects.get(tenant=tenant, integration_id="itdocs-prod-001")
    assert credential.access_count == 3
    assert ExecutionRecord.objects.count() == 4
    # The replay's record names no credential: it never reached the vendor.
    replay = ExecutionRecord.objects.get(outcome="replayed")
    assert replay.credential_used is None
    assert ExecutionRecord.objects.filter(credential_used=credential.id).count() == 3


def test_an_expired_credential_is_refused_uncounted_before_the_vendor_is_called(
    executor, tenant, itdocs_connection, itdocs_fake
):
    from datetime import timedelta

    from django.utils import timezone

    from vault.models import Credential

    rows = Credential.objects.filter(tenant=tenant, integration_id="itdocs-prod-001")
    rows.update(expires_at=timezone.now() - timedelta(minutes=1))
    error = assert_tool_error(_config_get(executor, itdocs_fake), 404, "CONNECTION_NOT_FOUND")
    assert error["details"]["reason"] == "CREDENTIAL_EXPIRED"
    assert rows.get().access_count == 0 and itdocs_fake.received == []
    assert ExecutionRecord.objects.get().credential_used is None


def test_a_policy_written_between_two_calls_gates_the_second(
    executor, tenant, itdocs_connection, itdocs_fake
):
    from toolhub.models import ApprovalPolicy

    assert_tool_ok(_config_get(executor, itdocs_fake))
    ApprovalPolicy.objects.create(tenant=tenant, gated_risk_levels=[], always_gate=["itdocs.configuration.*"])
    error = assert_tool_error(_config_get(executor, itdocs_fake), 422, "INVALID_INPUT")
    assert error["details"]["errors"][0]["path"] == "/idempotency_key"  # gated: it needs a key now
    dry = assert_tool_ok(_config_get(executor, itdocs_fake, dry_run=True))["data"]
    assert dry["approval_required"] is True and dry["connection_id"] == itdocs_connection.public_id
