"""Details, list, update, delete and the decrypted GET: shapes, roles, errors, tenant isolation."""

import pytest

from core.models import AuditEntry
from tests import factories
from tests.helpers import assert_error, assert_ok
from tests.vault.conftest import URL, store_body
from vault.models import Credential

pytestmark = pytest.mark.django_db


def item_url(stored) -> str:
    return f"{URL}/{stored['integrationId']}/{stored['id']}"


# ---- details


def test_details_never_carry_a_secret_and_say_whether_expired(viewer_api, stored):
    data = assert_ok(viewer_api.get(f"{URL}/itsm-prod-001/details"))
    assert data["id"] == stored["id"] and data["isExpired"] is False
    assert data["accessCount"] == 0 and data["lastAccessedAt"] is None
    assert not {"accessToken", "refreshToken", "secrets"} & set(data)


def test_details_select_a_credential_by_id_in_either_form(viewer_api, stored):
    bare = stored["id"][5:]
    for value in (stored["id"], bare):
        assert (
            assert_ok(viewer_api.get(f"{URL}/itsm-prod-001/details?credentialId={value}"))["id"]
            == stored["id"]
        )


def test_details_of_an_unknown_integration_are_404(viewer_api):
    error = assert_error(viewer_api.get(f"{URL}/nope/details"), 404, "CREDENTIAL_NOT_FOUND")
    assert error["details"] == {"integrationId": "nope"}


def test_a_malformed_credential_id_is_400(viewer_api, stored):
    error = assert_error(
        viewer_api.get(f"{URL}/itsm-prod-001/details?credentialId=42"), 400, "INVALID_PARAMETER"
    )
    assert "UUID" in error["details"]["credentialId"]


def test_another_tenants_credential_is_404_everywhere(outsider_api, stored):
    assert_error(outsider_api.get(f"{URL}/itsm-prod-001/details"), 404, "CREDENTIAL_NOT_FOUND")
    assert_error(outsider_api.get(f"{URL}/itsm-prod-001"), 404, "CREDENTIAL_NOT_FOUND")
    assert_error(
        outsider_api.patch(item_url(stored), {"status": "inactive"}, format="json"),
        404,
        "CREDENTIAL_NOT_FOUND",
    )
    assert_error(outsider_api.delete(item_url(stored)), 404, "CREDENTIAL_NOT_FOUND")
    assert_error(
        outsider_api.post(f"{URL}/{stored['id']}/rotate", {"accessToken": "x"}, format="json"),
        404,
        "CREDENTIAL_NOT_FOUND",
    )
    assert assert_ok(outsider_api.get(URL))["credentials"] == []
    row = Credential.objects.get(id=stored["id"][5:])
    assert row.status == "active" and row.access_count == 0


# ---- list


def test_the_list_is_paginated_and_filtered(admin_api, viewer_api):
    for n, auth_type in enumerate(["api_key", "jwt", "api_key"]):
        assert_ok(
            admin_api.post(URL, store_body(integrationId=f"sys-{n}", authType=auth_type), format="json")
        )
    Credential.objects.filter(integration_id="sys-1").update(is_expired=True)
    data = assert_ok(viewer_api.get(URL + "?limit=2"))
    assert [c["integrationId"] for c in data["credentials"]] == ["sys-2", "sys-1"]
    assert data["pagination"] == {"total": 3, "limit": 2, "offset": 0, "hasMore": True}
    assert {
        c["integrationId"] for c in assert_ok(viewer_api.get(URL + "?authType=api_key"))["credentials"]
    } == {
        "sys-0",
        "sys-2",
    }
    assert [
        c["integrationId"] for c in assert_ok(viewer_api.get(URL + "?isExpired=true"))["credentials"]
    ] == ["sys-1"]
    assert not any("accessToken" in c for c in data["credentials"])


@pytest.mark.parametrize(
    "query", ["limit=0", "limit=101", "offset=-1", "authType=x", "status=gone", "isExpired=maybe"]
)
def test_bad_list_parameters_are_400(viewer_api, query):
    assert_error(viewer_api.get(f"{URL}?{query}"), 400, "INVALID_PARAMETER")


def test_the_list_costs_a_fixed_number_of_queries(admin_api, viewer_api, django_assert_max_num_queries):
    for n in range(12):
        assert_ok(admin_api.post(URL, store_body(integrationId=f"sys-{n}"), format="json"))
    with django_assert_max_num_queries(8):
        assert len(assert_ok(viewer_api.get(URL))["credentials"]) == 12


# ---- update


def test_metadata_holding_a_nul_character_is_refused_and_nothing_changes(admin_api, stored):
    response = admin_api.patch(item_url(stored), {"metadata": {"a": "\u0000"}}, format="json")
    assert "NUL" in assert_error(response, 422, "VALIDATION_ERROR")["details"]["metadata"]
    assert Credential.objects.get(integration_id=stored["integrationId"]).metadata == {"region": "eu"}


def test_it_updates_metadata_and_reports_the_changes(admin_api, stored, tenant, owner):
    body = {
        "credentialName": "Renamed",
        "scopes": ["tickets.read", "kb.read"],
        "status": "inactive",
        "metadata": {"a": 1},
    }
    data = assert_ok(admin_api.patch(item_url(stored), body, format="json"))
    assert data["changes"]["credentialName"] == {"from": "ITSM production", "to": "Renamed"}
    assert data["changes"]["scopes"] == {"added": ["kb.read"], "removed": ["tickets.write"]}
    assert data["changes"]["status"] == {"from": "active", "to": "inactive"}
    assert data["changes"]["metadata"] == {"from": {"region": "eu"}, "to": {"a": 1}}
    assert data["updatedBy"]["id"] == str(owner.id) and data["updatedAt"]
    entry = AuditEntry.objects.get(tenant_id=tenant.id, action="CREDENTIAL_UPDATED")
    assert entry.details["changedFields"] == ["credentialName", "metadata", "scopes", "status"]


def test_an_update_keeps_the_secrets_readable(admin_api, stored):
    assert_ok(admin_api.patch(item_url(stored), {"metadata": {"moved": True}}, format="json"))
    assert assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))["accessToken"] == "ak-plain-0001"


def test_an_invalid_status_is_422_and_lists_the_allowed_values(admin_api, stored):
    error = assert_error(
        admin_api.patch(item_url(stored), {"status": "expired"}, format="json"), 422, "VALIDATION_ERROR"
    )
    assert error["details"]["status"] == "Invalid status. Allowed values: active, inactive."


def test_tokens_cannot_be_changed_by_an_update(admin_api, stored):
    error = assert_error(
        admin_api.patch(item_url(stored), {"accessToken": "new"}, format="json"), 422, "VALIDATION_ERROR"
    )
    assert "rotate" in error["details"]["accessToken"]


def test_a_bad_scope_in_an_update_is_422_and_a_wrong_type_400(admin_api, stored):
    assert_error(
        admin_api.patch(item_url(stored), {"scopes": ["a b"]}, format="json"), 422, "VALIDATION_ERROR"
    )
    assert_error(admin_api.patch(item_url(stored), {"scopes": "a"}, format="json"), 400, "VALIDATION_ERROR")
    assert_error(
        admin_api.patch(item_url(stored), data="[1", content_type="application/json"), 400, "VALIDATION_ERROR"
    )


def test_an_update_of_an_unknown_credential_is_404(admin_api, stored):
    other = "cred-00000000-0000-4000-8000-000000000000"
    assert_error(
        admin_api.patch(f"{URL}/itsm-prod-001/{other}", {"status": "inactive"}, format="json"),
        404,
        "CREDENTIAL_NOT_FOUND",
    )
    assert_error(
        admin_api.patch(f"{URL}/other-int/{stored['id']}", {"status": "inactive"}, format="json"),
        404,
        "CREDENTIAL_NOT_FOUND",
    )
    assert_error(
        admin_api.patch(f"{URL}/itsm-prod-001/not-a-uuid", {}, format="json"), 400, "INVALID_PARAMETER"
    )


def test_a_viewer_may_not_update(viewer_api, stored):
    assert_error(viewer_api.patch(item_url(stored), {"status": "inactive"}, format="json"), 403, "FORBIDDEN")


# ---- delete


def test_delete_leaves_a_tombstone_without_secrets(admin_api, stored, tenant, owner):
    data = assert_ok(admin_api.delete(item_url(stored)))
    assert data["status"] == "deleted" and data["integrationsAffected"] == 1
    assert data["deletedBy"]["id"] == str(owner.id) and data["deletedAt"]
    row = Credential.objects.get(id=stored["id"][5:])
    assert row.access_token is None and row.refresh_token is None and row.secrets is None
    assert AuditEntry.objects.filter(tenant_id=tenant.id, action="CREDENTIAL_DELETED").count() == 1
    details = assert_ok(admin_api.get(f"{URL}/itsm-prod-001/details?credentialId={stored['id']}"))
    assert details["status"] == "deleted"


def test_a_second_delete_is_409(admin_api, stored):
    assert_ok(admin_api.delete(item_url(stored)))
    error = assert_error(admin_api.delete(item_url(stored)), 409, "CREDENTIAL_ALREADY_DELETED")
    assert error["details"]["deletedAt"] and error["details"]["deletedBy"] == "owner"


def test_a_deleted_integration_can_be_stored_again(admin_api, stored):
    assert_ok(admin_api.delete(item_url(stored)))
    assert_error(admin_api.get(f"{URL}/itsm-prod-001/details"), 404, "CREDENTIAL_NOT_FOUND")
    assert_ok(admin_api.post(URL, store_body(), format="json"))


def test_a_viewer_may_not_delete(viewer_api, stored):
    assert_error(viewer_api.delete(item_url(stored)), 403, "FORBIDDEN")
    assert Credential.objects.get(id=stored["id"][5:]).status == "active"


# ---- decrypted GET


def test_the_decrypted_get_returns_the_secrets_counts_and_audits(admin_api, tenant):
    body = store_body(
        authType="oauth2_client_credentials",
        accessToken="at-1",
        refreshToken="rt-1",
        secrets={"clientId": "cid", "clientSecret": "cs-1"},
    )
    assert_ok(admin_api.post(URL, body, format="json"))
    response = admin_api.get(f"{URL}/itsm-prod-001")
    data = assert_ok(response)
    assert (data["accessToken"], data["refreshToken"]) == ("at-1", "rt-1")
    assert data["secrets"] == {"clientId": "cid", "clientSecret": "cs-1"}
    assert data["accessCount"] == 1 and data["lastAccessedAt"] and data["refreshError"] is None
    assert response["Cache-Control"] == "no-store"
    entry = AuditEntry.objects.get(tenant_id=tenant.id, action="CREDENTIAL_SECRET_READ")
    assert "at-1" not in str(entry.details) and entry.status == "success"
    assert assert_ok(admin_api.get(f"{URL}/itsm-prod-001/details"))["accessCount"] == 1


def test_each_decrypted_get_counts_on_its_own_credential_at_the_time_of_its_audit_entry(admin_api):
    assert_ok(admin_api.post(URL, store_body(integrationId="read-often"), format="json"))
    assert_ok(admin_api.post(URL, store_body(integrationId="never-read"), format="json"))
    for _ in range(3):
        assert_ok(admin_api.get(f"{URL}/read-often"))
    often = assert_ok(admin_api.get(f"{URL}/read-often/details"))
    last_read = AuditEntry.objects.filter(action="CREDENTIAL_SECRET_READ").order_by("-timestamp").first()
    assert often["accessCount"] == 3
    assert often["lastAccessedAt"] == last_read.timestamp.isoformat(timespec="milliseconds").replace(
        "+00:00", "Z"
    )
    never = assert_ok(admin_api.get(f"{URL}/never-read/details"))
    assert never["accessCount"] == 0 and never["lastAccessedAt"] is None


def test_a_viewer_may_not_read_secrets_but_may_read_details(viewer_api, stored):
    assert_error(viewer_api.get(f"{URL}/itsm-prod-001"), 403, "FORBIDDEN")
    assert_ok(viewer_api.get(f"{URL}/itsm-prod-001/details"))


def test_reading_secrets_needs_the_vault_secrets_scope(client_for, tenant, stored):
    _, writer = factories.make_api_key(tenant, ["vault:read", "vault:write"])
    assert_error(client_for(writer, tenant).get(f"{URL}/itsm-prod-001"), 403, "FORBIDDEN")
    _, reader = factories.make_api_key(tenant, ["vault:secrets"])
    assert assert_ok(client_for(reader, tenant).get(f"{URL}/itsm-prod-001"))["accessToken"] == "ak-plain-0001"


def test_the_decrypted_get_of_an_unknown_or_deleted_credential_is_404(admin_api, stored, tenant):
    assert_error(admin_api.get(f"{URL}/nope"), 404, "CREDENTIAL_NOT_FOUND")
    assert_error(admin_api.get(f"{URL}/itsm-prod-001?credentialId=zzz"), 400, "INVALID_PARAMETER")
    deleted = assert_ok(admin_api.delete(item_url(stored)))
    # The contract's decrypted GET answers 404 when there is no credential: a tombstone has no
    # secrets left, by its integration or by its id alike.
    assert_error(admin_api.get(f"{URL}/itsm-prod-001"), 404, "CREDENTIAL_NOT_FOUND")
    error = assert_error(
        admin_api.get(f"{URL}/itsm-prod-001?credentialId={stored['id']}"), 404, "CREDENTIAL_NOT_FOUND"
    )
    assert "deleted" in error["message"] and error["details"]["deletedAt"] == deleted["deletedAt"]
    assert not AuditEntry.objects.filter(tenant_id=tenant.id, action="CREDENTIAL_SECRET_READ").exists()
    # The tombstone itself stays visible in the details, and a second delete is still 409.
    details = assert_ok(admin_api.get(f"{URL}/itsm-prod-001/details?credentialId={stored['id']}"))
    assert details["status"] == "deleted"
    assert_error(admin_api.delete(item_url(stored)), 409, "CREDENTIAL_ALREADY_DELETED")


# ---- rotate (replacing values)


def test_rotate_replaces_the_given_values_and_audits(admin_api, stored, tenant):
    url = f"{URL}/{stored['id']}/rotate"
    data = assert_ok(admin_api.post(url, {"accessToken": "ak-plain-0002", "expiresIn": 60}, format="json"))
    assert data["rotation"]["method"] == "replaced" and data["rotation"]["fields"] == [
        "accessToken",
        "expiresIn",
    ]
    assert data["expiresAt"] and data["lastRotatedAt"]
    assert assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))["accessToken"] == "ak-plain-0002"
    entry = AuditEntry.objects.get(tenant_id=tenant.id, action="CREDENTIAL_ROTATED")
    assert entry.details["rotatedFields"] == ["accessToken", "expiresIn"]


def test_rotate_with_an_empty_body_on_a_credential_that_cannot_refresh_is_422(admin_api, stored):
    assert_error(
        admin_api.post(f"{URL}/{stored['id']}/rotate", {}, format="json"), 422, "CREDENTIAL_NOT_REFRESHABLE"
    )
    assert_error(admin_api.post(f"{URL}/{stored['id']}/rotate"), 422, "CREDENTIAL_NOT_REFRESHABLE")


def test_rotate_errors(admin_api, viewer_api, stored):
    url = f"{URL}/{stored['id']}/rotate"
    assert_error(admin_api.post(url, {"accessToken": 5}, format="json"), 400, "VALIDATION_ERROR")
    assert_error(admin_api.post(url, {"expiresIn": 0}, format="json"), 422, "VALIDATION_ERROR")
    assert_error(
        admin_api.post(f"{URL}/bad/rotate", {"accessToken": "x"}, format="json"), 400, "INVALID_PARAMETER"
    )
    assert_error(viewer_api.post(url, {"accessToken": "x"}, format="json"), 403, "FORBIDDEN")
    assert_ok(admin_api.delete(item_url(stored)))
    assert_error(admin_api.post(url, {"accessToken": "x"}, format="json"), 409, "CREDENTIAL_ALREADY_DELETED")


def test_details_decrypted_get_and_store_cost_a_fixed_number_of_queries(
    admin_api, stored, django_assert_max_num_queries
):
    assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))  # the process has unwrapped the tenant's DEK now
    with django_assert_max_num_queries(3):  # user, membership, the credential
        assert_ok(admin_api.get(f"{URL}/itsm-prod-001/details"))
    with django_assert_max_num_queries(11):  # + access-count UPDATE + the audit chain's three statements
        assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))
    with django_assert_max_num_queries(11):  # + active DEK version, INSERT, the audit
        assert_ok(admin_api.post(URL, store_body(integrationId="another"), format="json"))
