"""POST /api/v1/credentials: stores encrypted, answers the record without secrets."""

import pytest

from core.models import AuditEntry
from tests import factories
from tests.helpers import assert_error, assert_ok
from tests.vault.conftest import URL, store_body
from vault.crypto import Sealed
from vault.models import Credential

pytestmark = pytest.mark.django_db


def test_it_stores_a_credential_and_answers_the_record_without_secrets(admin_api, tenant, owner):
    data = assert_ok(admin_api.post(URL, store_body(expiresIn=3600), format="json"))
    assert data["id"].startswith("cred-") and data["integrationId"] == "itsm-prod-001"
    assert data["authType"] == "api_key" and data["status"] == "active"
    assert data["scopes"] == ["tickets.read", "tickets.write"] and data["metadata"] == {"region": "eu"}
    assert data["createdBy"] == {"id": str(owner.id), "name": "owner", "email": "owner@acme.test"}
    assert data["tenant"] == {"id": str(tenant.id), "name": "acme"}
    assert data["expiresAt"] and data["isExpired"] is False
    assert "accessToken" not in data and "refreshToken" not in data and "secrets" not in data
    row = Credential.objects.get(id=data["id"][5:])
    assert isinstance(row.access_token, Sealed) and "ak-plain-0001" not in row.access_token.stored
    assert (row.expires_at - row.created_at).total_seconds() == 3600


def test_it_audits_the_store_without_the_secret(admin_api, tenant):
    data = assert_ok(admin_api.post(URL, store_body(), format="json"))
    entry = AuditEntry.objects.get(tenant_id=tenant.id, action="CREDENTIAL_CREATED")
    assert entry.resource == {"type": "credential", "id": data["id"], "name": "itsm-prod-001"}
    assert entry.actor["name"] == "owner" and "ak-plain-0001" not in str(entry.details)


def test_a_second_store_for_the_same_integration_is_409(admin_api, stored):
    assert_error(admin_api.post(URL, store_body(), format="json"), 409, "CREDENTIAL_ALREADY_EXISTS")


def test_the_same_integration_id_in_another_tenant_is_fine(outsider_api, stored):
    assert_ok(outsider_api.post(URL, store_body(), format="json"))


@pytest.mark.parametrize("field", ["integrationId", "credentialName", "authType"])
def test_a_missing_required_field_is_400(admin_api, field):
    body = store_body()
    del body[field]
    error = assert_error(admin_api.post(URL, body, format="json"), 400, "VALIDATION_ERROR")
    assert field in error["details"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("scopes", "tickets.read"),
        ("metadata", ["x"]),
        ("expiresIn", "soon"),
        ("accessToken", 12),
        ("secrets", "s"),
    ],
)
def test_a_wrong_json_type_is_400(admin_api, field, value):
    error = assert_error(
        admin_api.post(URL, store_body(**{field: value}), format="json"), 400, "VALIDATION_ERROR"
    )
    assert field in error["details"]


def test_malformed_json_is_400(admin_api):
    response = admin_api.post(URL, data="{not json", content_type="application/json")
    assert_error(response, 400, "VALIDATION_ERROR")


def test_an_invalid_auth_type_is_422_and_lists_the_allowed_values(admin_api):
    error = assert_error(
        admin_api.post(URL, store_body(authType="kerberos"), format="json"), 422, "VALIDATION_ERROR"
    )
    assert (
        "oauth2_client_credentials" in error["details"]["authType"]
        and "custom" in error["details"]["authType"]
    )


@pytest.mark.parametrize("field", ["tokenEndpoint", "authorizationEndpoint"])
def test_an_invalid_endpoint_url_is_422(admin_api, field):
    error = assert_error(
        admin_api.post(URL, store_body(**{field: "not a url"}), format="json"), 422, "VALIDATION_ERROR"
    )
    assert error["details"][field].startswith("Invalid URL format")


def test_an_endpoint_the_outbound_guard_refuses_is_422_on_that_field(admin_api):
    body = store_body(tokenEndpoint="http://169.254.169.254/latest/meta-data")
    error = assert_error(admin_api.post(URL, body, format="json"), 422, "VALIDATION_ERROR")
    assert "not allowed" in error["details"]["tokenEndpoint"]
    assert not Credential.objects.exists()


def test_an_unresolvable_public_endpoint_is_accepted_for_later(admin_api):
    body = store_body(tokenEndpoint="https://login.vendor-that-does-not-resolve.example/oauth2/token")
    assert_ok(admin_api.post(URL, body, format="json"))


def test_a_bad_scope_format_is_422(admin_api):
    error = assert_error(
        admin_api.post(URL, store_body(scopes=["ok", "has space"]), format="json"), 422, "VALIDATION_ERROR"
    )
    assert "scope" in error["details"]["scopes"]


@pytest.mark.parametrize("value", [0, -5])
def test_expires_in_must_be_positive(admin_api, value):
    assert_error(admin_api.post(URL, store_body(expiresIn=value), format="json"), 422, "VALIDATION_ERROR")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("accessToken", "x" * (16 * 1024 + 1)),
        ("credentialName", "n" * 256),
        ("description", "d" * 2001),
        ("metadata", {"blob": "m" * (16 * 1024)}),
        ("metadata", {"note": "a\u0000b"}),  # no database text holds a NUL
        ("metadata", {"nested": [{"k\u0000": 1}]}),
        ("scopes", [f"s{i}" for i in range(101)]),
        ("integrationId", "has/slash"),
    ],
)
def test_oversized_or_malformed_values_are_422_and_nothing_is_stored(admin_api, field, value):
    assert_error(admin_api.post(URL, store_body(**{field: value}), format="json"), 422, "VALIDATION_ERROR")
    assert not Credential.objects.exists()


def test_basic_auth_needs_base64_credentials(admin_api):
    body = store_body(authType="basic_auth", accessToken="user:pass", metadata={"username": "user"})
    assert_error(admin_api.post(URL, body, format="json"), 422, "VALIDATION_ERROR")
    body["accessToken"] = "dXNlcjpwYXNz"
    assert assert_ok(admin_api.post(URL, body, format="json"))["metadata"] == {"username": "user"}


def test_client_credentials_with_a_token_endpoint_are_stored_without_a_client_secret(admin_api):
    # The contract's store body has no client secret: a refresh that cannot be made is flagged later.
    body = store_body(authType="oauth2_client_credentials", tokenEndpoint="https://id.vendor.example/token")
    data = assert_ok(admin_api.post(URL, body, format="json"))
    assert data["authType"] == "oauth2_client_credentials" and data["refreshError"] is None
    assert assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))["accessToken"] == "ak-plain-0001"


def test_a_viewer_may_not_store(viewer_api):
    assert_error(viewer_api.post(URL, store_body(), format="json"), 403, "FORBIDDEN")
    assert not Credential.objects.exists()


def test_an_api_key_needs_vault_write(client_for, tenant):
    _, read_only = factories.make_api_key(tenant, ["vault:read"])
    assert_error(client_for(read_only, tenant).post(URL, store_body(), format="json"), 403, "FORBIDDEN")
    _, writer = factories.make_api_key(tenant, ["vault:write"])
    assert_ok(client_for(writer, tenant).post(URL, store_body(), format="json"))


def test_it_needs_authentication_and_a_tenant(client_for, owner):
    assert_error(client_for(None).post(URL, store_body(), format="json"), 401, "UNAUTHORIZED")
    assert_error(client_for(owner).post(URL, store_body(), format="json"), 400, "TENANT_REQUIRED")
