"""/api/v1/admin/realms: a tenant admin registers, reads, changes and removes identity realms."""

from __future__ import annotations

import re
import uuid

import pytest

from core.models import AuditEntry
from identity.models import IdentityRealm
from identity.services.users import console_access_sync
from tests.helpers import assert_error, assert_ok

URL = "/api/v1/admin/realms"
ISSUER = "https://idp.acme.test/realms/acme"


def body(**changes) -> dict:
    return {
        "name": "corp",
        "issuer": ISSUER,
        "audience": "integration-api",
        "roleMapping": {"viewer": "integration_viewer", "ops": "integration_admin"},
    } | changes


def test_an_owner_registers_lists_reads_changes_and_removes_a_realm(as_owner, owner, tenant):
    created = assert_ok(as_owner.post(URL, body()))
    assert re.fullmatch(r"realm-[0-9a-f-]{36}", created["id"])
    assert created | {"id": "", "createdAt": ""} == {
        "id": "",
        "name": "corp",
        "issuer": ISSUER,
        "audience": "integration-api",
        "jwksUrl": None,
        "usernameClaim": "preferred_username",
        "rolesClaim": "roles",
        "roleMapping": {"viewer": "integration_viewer", "ops": "integration_admin"},
        "groupsClaim": "groups",
        "groupMapping": {},
        "createdAt": "",
        "createdBy": {"id": str(owner.id), "name": "owner", "email": "owner@acme.test"},
        "updatedAt": None,
        "updatedBy": None,
    }
    bare = created["id"].removeprefix("realm-")
    assert assert_ok(as_owner.get(f"{URL}/{bare}")) == created

    listed = assert_ok(as_owner.get(URL, {"limit": 1}))
    assert listed == {
        "realms": [created],
        "pagination": {"total": 1, "limit": 1, "offset": 0, "hasMore": False},
    }

    changed = assert_ok(
        as_owner.patch(f"{URL}/{created['id']}", {"rolesClaim": "realm_access.roles", "roleMapping": {}})
    )
    assert (changed["rolesClaim"], changed["roleMapping"], changed["audience"]) == (
        "realm_access.roles",
        {},
        "integration-api",
    )
    assert changed["updatedBy"]["id"] == str(owner.id)

    deleted = assert_ok(as_owner.delete(f"{URL}/{created['id']}"))
    assert (deleted["id"], deleted["deleted"]) == (created["id"], True)
    assert_error(as_owner.get(f"{URL}/{created['id']}"), 404, "REALM_NOT_FOUND")

    entries = AuditEntry.objects.filter(tenant_id=tenant.id, resource_type="identity_realm").order_by("seq")
    assert [e.action for e in entries] == ["REALM_CREATED", "REALM_UPDATED", "REALM_DELETED"]
    assert entries[1].details == {"changed": ["roleMapping", "rolesClaim"]}
    assert all(e.actor["id"] == str(owner.id) and e.resource["id"] == created["id"] for e in entries)


def test_a_second_realm_of_the_same_name_is_a_conflict(as_owner):
    assert_ok(as_owner.post(URL, body()))
    other = assert_ok(as_owner.post(URL, body(name="partners")))

    assert_error(as_owner.post(URL, body()), 409, "REALM_NAME_EXISTS")
    assert_error(as_owner.patch(f"{URL}/{other['id']}", {"name": "corp"}), 409, "REALM_NAME_EXISTS")


def test_another_tenant_may_use_the_same_name(as_owner, as_outsider):
    assert_ok(as_owner.post(URL, body()))

    assert_ok(as_outsider.post(URL, body()))


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"issuer": "http://idp.acme.test/realms/acme"}, "issuer"),
        ({"issuer": "idp.acme.test"}, "issuer"),
        ({"issuer": "https://idp.acme.test/realms/acme?x=1"}, "issuer"),
        ({"issuer": "https://127.0.0.1:8443/realms/acme"}, "issuer"),  # the guard refuses loopback
        ({"jwksUrl": "https://169.254.169.254/keys"}, "jwksUrl"),
        ({"roleMapping": {"viewer": "super_admin"}}, "roleMapping.viewer"),
        ({"name": ""}, "name"),
    ],
)
def test_it_names_the_field_of_a_value_it_refuses(as_owner, settings, changes, field):
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False

    error = assert_error(as_owner.post(URL, body(**changes)), 422, "VALIDATION_ERROR")

    assert list(error["details"]) == [field]
    assert not IdentityRealm.objects.exists()


def test_a_missing_field_or_a_wrong_type_is_a_bad_request(as_owner, as_teammate):
    without_mapping = {k: v for k, v in body().items() if k != "roleMapping"}

    assert list(assert_error(as_owner.post(URL, without_mapping), 400, "VALIDATION_ERROR")["details"]) == [
        "roleMapping"
    ]
    assert_error(as_owner.post(URL, body(roleMapping=["viewer"])), 400, "VALIDATION_ERROR")
    created = assert_ok(as_owner.post(URL, body()))
    assert_error(as_owner.patch(f"{URL}/{created['id']}", {"tenant": "x"}), 400, "VALIDATION_ERROR")
    assert_error(as_owner.get(f"{URL}/not-an-id"), 400, "INVALID_PARAMETER")


def test_only_tenant_admins_manage_realms(as_teammate, anon):
    assert_error(as_teammate.get(URL), 403, "FORBIDDEN")
    assert_error(as_teammate.post(URL, body()), 403, "FORBIDDEN")
    assert_error(anon.get(URL), 401, "UNAUTHORIZED")


def test_another_tenants_realm_is_not_found(as_owner, as_outsider):
    realm_id = assert_ok(as_owner.post(URL, body()))["id"]

    assert_error(as_outsider.get(f"{URL}/{realm_id}"), 404, "REALM_NOT_FOUND")
    assert_error(as_outsider.patch(f"{URL}/{realm_id}", {"audience": "x"}), 404, "REALM_NOT_FOUND")
    assert_error(as_outsider.delete(f"{URL}/{realm_id}"), 404, "REALM_NOT_FOUND")
    assert assert_ok(as_outsider.get(URL))["realms"] == []
    assert_error(as_outsider.get(f"{URL}/realm-{uuid.uuid4()}"), 404, "REALM_NOT_FOUND")
    assert IdentityRealm.objects.get().audience == "integration-api"


def test_tenant_admins_register_change_and_remove_their_realms_in_the_console(
    client, owner, tenant, other_tenant
):
    IdentityRealm.objects.create(tenant=other_tenant, name="globex-sso", issuer=ISSUER, audience="a")
    console_access_sync(user_ids=[owner.id])  # a tenant admin is staff
    client.force_login(owner)
    page = "/admin/identity/identityrealm/"
    form = {
        "tenant": str(tenant.id),
        "name": "acme-sso",
        "issuer": "http://idp.acme.test/realms/acme",
        "audience": "integration-api",
        "jwks_url": "",
        "username_claim": "preferred_username",
        "roles_claim": "roles",
        "role_mapping": '{"helpdesk": "integration_viewer", "boss": "super_admin"}',
        "groups_claim": "groups",
        "group_mapping": "{}",
    }

    refused = client.post(f"{page}add/", form)
    assert refused.status_code == 200 and not IdentityRealm.objects.filter(tenant=tenant).exists()
    errors = refused.context["adminform"].form.errors
    assert set(errors) == {"issuer", "role_mapping"}, errors

    form |= {"issuer": ISSUER, "role_mapping": '{"helpdesk": "integration_viewer"}'}
    assert client.post(f"{page}add/", form).status_code == 302
    realm = IdentityRealm.objects.get(tenant=tenant)
    assert (realm.name, realm.role_mapping) == ("acme-sso", {"helpdesk": "integration_viewer"})
    listing = client.get(page).content.decode()
    assert "acme-sso" in listing and "globex-sso" not in listing

    changed = client.post(f"{page}{realm.id}/change/", form | {"audience": "reports"})
    assert changed.status_code == 302 and IdentityRealm.objects.get(id=realm.id).audience == "reports"
    assert client.post(f"{page}{realm.id}/delete/", {"post": "yes"}).status_code == 302
    assert not IdentityRealm.objects.filter(tenant=tenant).exists()

    actions = AuditEntry.objects.filter(tenant_id=tenant.id, category="identity_realms").order_by("timestamp")
    assert [(e.action, e.actor["name"]) for e in actions] == [
        ("REALM_CREATED", "owner"),
        ("REALM_UPDATED", "owner"),
        ("REALM_DELETED", "owner"),
    ]
    assert actions[1].details["changed"] == ["audience"]
