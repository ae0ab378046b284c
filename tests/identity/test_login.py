"""JWT login and refresh, each attempt audited without the password."""

import json

import pytest
from rest_framework_simplejwt.tokens import RefreshToken

from core.audit import owner_chains
from core.models import AuditEntry
from tests.factories import PASSWORD
from tests.helpers import assert_error, assert_ok

pytestmark = pytest.mark.django_db
TOKEN = "/api/v1/auth/token"


def login(client, username, password, **headers):
    return client.post(
        TOKEN, {"username": username, "password": password}, content_type="application/json", **headers
    )


def test_a_login_returns_a_token_pair_that_authenticates(client, owner, tenant):
    data = assert_ok(login(client, "owner", PASSWORD))
    assert data["tokenType"] == "Bearer" and data["expiresIn"] == 1800
    response = client.get(
        "/api/v1/admin/health", HTTP_AUTHORIZATION=f"Bearer {data['access']}", HTTP_X_TENANTID=str(tenant.id)
    )
    assert assert_ok(response)["services"]["database"] == "healthy"


def test_a_login_is_audited_in_the_users_tenant(client, owner, tenant):
    login(client, "owner", PASSWORD, HTTP_X_FORWARDED_FOR="1.2.3.4")
    entry = AuditEntry.objects.get(action="USER_LOGIN")
    assert entry.tenant_id == tenant.id and entry.category == "authentication" and entry.status == "success"
    assert entry.actor["id"] == str(owner.id) and entry.actor["ipAddress"] == "127.0.0.1"
    assert entry.resource == {"type": "user", "id": str(owner.id), "name": "owner"}


def test_a_wrong_password_is_401_and_audited_as_a_failure_without_the_password(client, owner, tenant):
    response = login(client, "owner", "wrong-password-xyz")
    assert_error(response, 401, "UNAUTHORIZED")
    entry = AuditEntry.objects.get(action="USER_LOGIN_FAILED")
    assert entry.status == "failure" and entry.tenant_id == tenant.id
    assert "wrong-password-xyz" not in json.dumps([entry.actor, entry.details, entry.resource])


def test_an_unknown_user_is_audited_in_the_platform_chains(client, db):
    assert_error(login(client, "nobody", "x"), 401, "UNAUTHORIZED")
    entry = AuditEntry.objects.get(action="USER_LOGIN_FAILED")
    assert entry.chain in owner_chains("platform") and entry.tenant_id is None


def test_a_missing_password_is_400(client, db):
    response = client.post(TOKEN, {"username": "owner"}, content_type="application/json")
    assert assert_error(response, 400, "VALIDATION_ERROR")["details"] == {
        "password": "This field is required."
    }


def test_logins_are_rate_limited_per_address(client, owner, settings):
    settings.RATE_LIMIT_LOGIN = "2/m"
    login(client, "owner", "bad")
    login(client, "owner", "bad")
    response = login(client, "owner", PASSWORD)
    assert_error(response, 429, "RATE_LIMITED")
    assert response["Retry-After"]


def test_a_refresh_token_gives_a_new_access_token(client, owner):
    pair = assert_ok(login(client, "owner", PASSWORD))
    refreshed = client.post(TOKEN + "/refresh", {"refresh": pair["refresh"]}, content_type="application/json")
    assert assert_ok(refreshed)["access"].count(".") == 2


def test_an_access_token_is_not_a_refresh_token(client, owner):
    pair = assert_ok(login(client, "owner", PASSWORD))
    response = client.post(TOKEN + "/refresh", {"refresh": pair["access"]}, content_type="application/json")
    assert_error(response, 401, "UNAUTHORIZED")


def test_a_tampered_or_unsigned_jwt_is_refused(client, owner, tenant):
    import base64

    access = assert_ok(login(client, "owner", PASSWORD))["access"]
    header, payload, signature = access.split(".")
    unsigned = base64.urlsafe_b64encode(b'{"alg":"none","typ":"JWT"}').rstrip(b"=").decode() + f".{payload}."
    for token in (f"{header}.{payload}.{signature[:-2]}xx", unsigned):
        response = client.get(
            "/api/v1/admin/health", HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_X_TENANTID=str(tenant.id)
        )
        assert_error(response, 401, "UNAUTHORIZED")


def _refresh(client, token: str):
    return client.post(TOKEN + "/refresh", {"refresh": token}, content_type="application/json")


def test_each_refresh_answers_a_new_refresh_token_and_the_old_one_is_spent(client, owner):
    first = assert_ok(login(client, "owner", PASSWORD))["refresh"]
    second = assert_ok(_refresh(client, first))["refresh"]
    third = assert_ok(_refresh(client, second))["refresh"]
    assert len({first, second, third}) == 3


def test_a_reused_refresh_token_revokes_its_whole_sign_in(client, owner, tenant):
    first = assert_ok(login(client, "owner", PASSWORD))["refresh"]
    elsewhere = assert_ok(login(client, "owner", PASSWORD))["refresh"]  # another sign-in, unaffected
    second = assert_ok(_refresh(client, first))["refresh"]
    assert_error(_refresh(client, first), 401, "UNAUTHORIZED")  # the copy
    assert_error(_refresh(client, second), 401, "UNAUTHORIZED")  # and the family with it
    assert_ok(_refresh(client, elsewhere))
    entry = AuditEntry.objects.get(action="REFRESH_TOKEN_REUSED")
    assert entry.status == "failure" and entry.tenant_id == tenant.id and entry.actor["name"] == "owner"
    assert first not in json.dumps(entry.details) and second not in json.dumps(entry.details)


def test_the_cleanup_job_forgets_sign_ins_whose_refresh_token_expired(client, owner, settings):
    from datetime import timedelta

    from django.utils import timezone

    from identity.jobs import cleanup_expired_sessions
    from identity.models import RefreshFamily

    stale = assert_ok(login(client, "owner", PASSWORD))["refresh"]
    fresh = assert_ok(login(client, "owner", PASSWORD))["refresh"]
    RefreshFamily.objects.filter(id=RefreshToken(stale)["fam"]).update(
        refreshed_at=timezone.now() - timedelta(days=2)
    )
    assert cleanup_expired_sessions(None) >= 1
    assert_error(_refresh(client, stale), 401, "UNAUTHORIZED")
    assert_ok(_refresh(client, fresh))
