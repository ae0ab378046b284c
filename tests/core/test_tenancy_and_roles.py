"""Who may call what in which tenant: 401 before 400 before 403, and 404 for other tenants' objects."""

import pytest

from core.models import Role
from identity.models import ApiKey
from tests import factories
from tests.helpers import assert_error, assert_ok

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.probe_urls")]


@pytest.fixture
def key(tenant):
    return factories.make_api_key(tenant, ["vault:read"])[0]


def url(key) -> str:
    return f"/api/v1/probe/keys/{key.id}"


def test_no_credentials_is_401_even_without_a_tenant_header(client_for, key):
    response = client_for(None).get(url(key))
    assert_error(response, 401, "UNAUTHORIZED")
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_a_bad_token_is_401_before_the_missing_tenant(client_for, key):
    assert_error(client_for("not.a.jwt").get(url(key)), 401, "UNAUTHORIZED")
    assert_error(client_for("ak_live_wrong").get(url(key)), 401, "UNAUTHORIZED")


def test_a_missing_tenant_header_is_400_before_permission(client_for, outsider, key):
    assert_error(client_for(outsider, None).get(url(key)), 400, "TENANT_REQUIRED")


def test_a_malformed_tenant_header_is_400(client_for, owner, key):
    assert_error(client_for(owner, "not-a-uuid").get(url(key)), 400, "INVALID_PARAMETER")


def test_a_tenant_the_user_does_not_belong_to_is_403(client_for, outsider, tenant, key):
    assert_error(client_for(outsider, tenant).get(url(key)), 403, "FORBIDDEN")


def test_the_owner_reads_the_object(client_for, owner, tenant, key):
    assert assert_ok(client_for(owner, tenant).get(url(key)))["id"] == str(key.id)


def test_the_teammate_may_read_but_not_delete(client_for, teammate, tenant, key):
    assert_ok(client_for(teammate, tenant).get(url(key)))
    assert_error(client_for(teammate, tenant).delete(url(key)), 403, "FORBIDDEN")
    assert ApiKey.objects.filter(id=key.id).exists()


def test_the_outsider_gets_404_for_our_object_in_their_own_tenant(client_for, outsider, other_tenant, key):
    assert_error(client_for(outsider, other_tenant).get(url(key)), 404, "API_KEY_NOT_FOUND")
    assert_error(client_for(outsider, other_tenant).delete(url(key)), 404, "API_KEY_NOT_FOUND")
    assert ApiKey.objects.filter(id=key.id).exists()


def test_an_audit_viewer_alone_cannot_read_vault_objects(client_for, tenant, key):
    auditor = factories.make_user(tenant, [Role.AUDIT_VIEWER])
    assert_error(client_for(auditor, tenant).get(url(key)), 403, "FORBIDDEN")


def test_a_super_admin_acts_in_any_tenant_without_a_membership(client_for, tenant, key):
    root = factories.make_super_admin()
    assert_ok(client_for(root, tenant).delete(url(key)))


def test_an_api_key_works_in_both_headers_for_its_own_tenant(client_for, tenant, key):
    raw = factories.make_api_key(tenant, ["vault:read"])[1]
    assert_ok(client_for(raw, tenant).get(url(key)))
    assert_ok(client_for(None, tenant, HTTP_X_API_KEY=raw).get(url(key)))


def test_an_api_key_is_refused_in_another_tenant(client_for, tenant, other_tenant, key):
    raw = factories.make_api_key(other_tenant, ["*"])[1]
    assert_error(client_for(raw, tenant).get(url(key)), 403, "FORBIDDEN")


def test_an_api_key_without_the_scope_is_403(client_for, tenant, key):
    raw = factories.make_api_key(tenant, ["vault:read"])[1]
    assert_error(client_for(raw, tenant).delete(url(key)), 403, "FORBIDDEN")


def test_a_revoked_or_expired_key_stops_authenticating(client_for, tenant, key):
    from datetime import timedelta

    from django.utils import timezone

    revoked, raw_revoked = factories.make_api_key(tenant, ["*"])
    ApiKey.objects.filter(id=revoked.id).update(status=ApiKey.Status.REVOKED)
    expired, raw_expired = factories.make_api_key(tenant, ["*"])
    ApiKey.objects.filter(id=expired.id).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert_error(client_for(raw_revoked, tenant).get(url(key)), 401, "UNAUTHORIZED")
    assert_error(client_for(raw_expired, tenant).get(url(key)), 401, "UNAUTHORIZED")


def test_a_suspended_tenant_refuses_its_own_members(client_for, owner, tenant, key):
    tenant.status = "suspended"
    tenant.save()
    assert_error(client_for(owner, tenant).get(url(key)), 403, "TENANT_INACTIVE")


def test_an_inactive_user_token_is_401(client_for, owner, tenant, key):
    client = client_for(owner, tenant)
    owner.is_active = False
    owner.save()
    assert_error(client.get(url(key)), 401, "UNAUTHORIZED")
