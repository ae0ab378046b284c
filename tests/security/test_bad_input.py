"""Bad input everywhere answers a documented 4xx with a clear message and stores nothing: oversized
bodies, deep JSON, wrong content types, invalid UTF-8, huge pagination values, and mass assignment
of `accessToken`, `tenant` and `id` through PATCH."""

from __future__ import annotations

import json

import pytest

from core.models import AuditEntry
from tests.helpers import assert_error, assert_ok
from tests.toolhub.support import make_connection, make_credential
from vault.models import Credential

pytestmark = pytest.mark.django_db

CREDENTIALS = "/api/v1/credentials"
BODY = {
    "integrationId": "itsm-prod-001",
    "credentialName": "ITSM",
    "authType": "api_key",
    "accessToken": "t-1",
}
WRITES = [
    CREDENTIALS,
    "/api/v1/api-keys",
    "/api/v1/oauth-clients",
    "/api/v1/connections",
    "/v2/sitelib/listing",
]


@pytest.fixture
def api(client_for, owner, tenant):
    return client_for(owner, tenant)


def _status_and_message(response) -> tuple[int, str]:
    body = response.json()
    if "detail" in body:
        detail = body["detail"]
        return response.status_code, detail if isinstance(detail, str) else json.dumps(detail)
    return response.status_code, body["error"]["message"]


def _nothing_stored(tenant, audit_before: int) -> None:
    assert Credential.objects.filter(tenant=tenant).count() == 0
    assert AuditEntry.objects.filter(tenant_id=tenant.id).count() == audit_before


@pytest.mark.parametrize("path", WRITES)
def test_an_oversized_body_is_413(api, tenant, path):
    audit = AuditEntry.objects.filter(tenant_id=tenant.id).count()
    big = json.dumps(BODY | {"description": "x" * (1024 * 1024 + 10)})
    status, message = _status_and_message(api.generic("POST", path, big, content_type="application/json"))
    assert status == 413 and "limit" in message
    _nothing_stored(tenant, audit)


@pytest.mark.parametrize("path", WRITES)
def test_deep_json_is_400(api, tenant, path):
    deep = "[" * 5000 + "]" * 5000
    status, message = _status_and_message(api.generic("POST", path, deep, content_type="application/json"))
    assert status in (400, 422) and ("nested" in message or "Malformed" in message), message


@pytest.mark.parametrize("path", WRITES)
@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/xml", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded"],
)
def test_a_wrong_content_type_is_415(api, tenant, path, content_type):
    response = api.generic("POST", path, "integrationId=x", content_type=content_type)
    status, message = _status_and_message(response)
    assert status == 415 and "media type" in message.lower(), message
    assert Credential.objects.filter(tenant=tenant).count() == 0


@pytest.mark.parametrize("path", WRITES)
def test_invalid_utf8_is_400(api, tenant, path):
    raw = b'{"integrationId": "\xff\xfe\xc3\x28", "credentialName": "x"}'
    response = api.generic("POST", path, raw, content_type="application/json")
    assert response.status_code in (400, 422) and "UTF-8" in response.content.decode(), response.content
    assert Credential.objects.filter(tenant=tenant).count() == 0


@pytest.mark.parametrize(
    "path", [CREDENTIALS, "/api/v1/api-keys", "/api/v1/oauth-clients", "/api/v1/admin/audit-logs"]
)
@pytest.mark.parametrize(
    "query", ["limit=100000000000000000000000", "limit=0", "limit=-1", "offset=-5", "offset=1e9", "limit=1.5"]
)
def test_huge_or_bad_pagination_values_are_400(api, path, query):
    assert_error(api.get(f"{path}?{query}"), 400, "INVALID_PARAMETER")


def test_a_huge_offset_is_an_empty_page_not_an_error(api):
    data = assert_ok(api.get(f"{CREDENTIALS}?offset=999999999"))
    assert data["pagination"]["hasMore"] is False


def test_patch_refuses_mass_assignment_of_secrets_tenant_and_id(api, tenant, other_tenant):
    stored = assert_ok(api.post(CREDENTIALS, BODY, format="json"))
    url = f"{CREDENTIALS}/itsm-prod-001/{stored['id']}"
    before = Credential.objects.get(tenant=tenant)
    sealed = before.access_token
    for field, value in [
        ("accessToken", "stolen-token"),
        ("refreshToken", "stolen-refresh"),
        ("tenant", str(other_tenant.id)),
        ("tenantId", str(other_tenant.id)),
        ("id", "cred-00000000-0000-0000-0000-000000000000"),
        ("credentialId", "cred-00000000-0000-0000-0000-000000000000"),
    ]:
        response = api.patch(url, {"description": "new", field: value}, format="json")
        assert 400 <= response.status_code < 500, (field, response.status_code)
        error = response.json()["error"]
        assert field in error["details"] or field in error["message"], (field, error)
    after = Credential.objects.get(tenant=tenant)
    assert after.description == before.description and after.access_token == sealed
    assert after.id == before.id and after.tenant_id == tenant.id
    assert not Credential.objects.filter(tenant=other_tenant).exists()


def test_patch_of_other_objects_refuses_tenant_and_id(api, tenant, other_tenant, settings):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = True
    client = assert_ok(api.post("/api/v1/oauth-clients", {
        "name": "c", "clientType": "confidential", "redirectUris": [],
        "grantTypes": ["client_credentials"], "scopes": ["admin:read"]}, format="json"))  # fmt: skip
    make_credential(tenant, "itdocs-prod-001", access_token="t-2")
    connection = make_connection(tenant, "http://127.0.0.1:9", integration_id="itdocs-prod-001")
    targets = [f"/api/v1/oauth-clients/{client['id']}", f"/api/v1/connections/conn_{connection.id.hex}",
               f"/api/v1/admin/tenants/{tenant.id}"]  # fmt: skip
    for url in targets:
        for field, value in [
            ("tenant", str(other_tenant.id)),
            ("id", "00000000-0000-0000-0000-000000000000"),
        ]:
            response = api.patch(url, {field: value}, format="json")
            assert 400 <= response.status_code < 500, (url, field, response.status_code, response.content)
            assert field in response.content.decode(), (url, field, response.content)
    assert api.get(targets[0]).json()["data"]["id"] == client["id"]
    connection.refresh_from_db()
    assert connection.tenant_id == tenant.id
