"""Automatic OAuth refresh against a real loopback token endpoint, one upstream call under
concurrency, refused refreshes flagged and audited, and the connector interface."""

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from core.api.errors import ApiError
from core.models import AuditEntry
from tests.helpers import assert_error, assert_ok
from tests.vault.conftest import URL, store_body
from vault.models import Credential
from vault.services.use import credential_for_use


def store_oauth(api, provider, *, expired=True, refresh_token="rt-0", **overrides):
    provider.valid_refresh_tokens.add(refresh_token)
    body = (
        store_body(
            authType="oauth2_bearer",
            accessToken="at-0",
            refreshToken=refresh_token,
            tokenEndpoint=provider.token_url,
            scopes=["offline_access"],
        )
        | overrides
    )
    data = assert_ok(api.post(URL, body, format="json"))
    if expired:
        Credential.objects.filter(id=data["id"][5:]).update(expires_at=timezone.now() - timedelta(minutes=1))
    return data


@pytest.mark.django_db
def test_an_expired_token_is_refreshed_on_the_decrypted_read(admin_api, oauth_provider, tenant):
    store_oauth(admin_api, oauth_provider)
    data = assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))
    assert data["accessToken"] == "fresh-access-1" and data["refreshToken"] == "fresh-refresh-1"
    assert data["isExpired"] is False and data["refreshError"] is None and data["lastRefreshedAt"]
    [call] = oauth_provider.token_calls()
    assert call.form() == {"grant_type": "refresh_token", "refresh_token": "rt-0", "scope": "offline_access"}
    assert AuditEntry.objects.filter(tenant_id=tenant.id, action="CREDENTIAL_REFRESHED").count() == 1
    assert data["accessCount"] == 1  # the read that refreshed counts once
    reads = AuditEntry.objects.filter(tenant_id=tenant.id, action="CREDENTIAL_SECRET_READ")
    assert reads.count() == 1
    again = assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))
    assert len(oauth_provider.token_calls()) == 1  # fresh now: no second call
    assert again["accessCount"] == 2 and again["accessToken"] == "fresh-access-1" and reads.count() == 2


@pytest.mark.django_db
def test_a_token_expiring_within_five_minutes_is_refreshed(admin_api, oauth_provider):
    data = store_oauth(admin_api, oauth_provider, expired=False, expiresIn=120)
    assert assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))["accessToken"] == "fresh-access-1"
    assert data["expiresAt"]


@pytest.mark.django_db
def test_a_valid_token_is_not_refreshed(admin_api, oauth_provider):
    store_oauth(admin_api, oauth_provider, expired=False, expiresIn=3600)
    assert assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))["accessToken"] == "at-0"
    assert oauth_provider.token_calls() == []


@pytest.mark.django_db
def test_a_refused_refresh_answers_200_with_the_stored_tokens_and_flags_the_credential(
    admin_api, oauth_provider, tenant
):
    store_oauth(admin_api, oauth_provider, refresh_token="revoked-at-provider")
    oauth_provider.valid_refresh_tokens.clear()
    data = assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))
    assert data["accessToken"] == "at-0" and data["refreshError"]["code"] == "REFRESH_REJECTED"
    assert "invalid_grant" in data["refreshError"]["message"] and data["refreshError"]["at"]
    row = Credential.objects.get(integration_id="itsm-prod-001")
    assert row.refresh_failed_at is not None and row.status == "active"
    entry = AuditEntry.objects.get(tenant_id=tenant.id, action="CREDENTIAL_REFRESH_FAILED")
    assert entry.status == "failure" and entry.details["reason"] == "REFRESH_REJECTED"
    # Flagged: no more automatic attempts until rotated, but the flag stays visible.
    again = assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))
    assert again["refreshError"]["code"] == "REFRESH_REJECTED" and len(oauth_provider.token_calls()) == 1


@pytest.mark.django_db
def test_a_provider_outage_is_reported_but_not_flagged(admin_api, oauth_provider):
    store_oauth(admin_api, oauth_provider)
    oauth_provider.mode = "server_error"
    data = assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))
    assert data["refreshError"]["code"] == "REFRESH_UNAVAILABLE" and data["accessToken"] == "at-0"
    assert Credential.objects.get(integration_id="itsm-prod-001").refresh_failed_at is None


@pytest.mark.django_db
def test_the_token_endpoint_goes_through_the_outbound_guard(admin_api, oauth_provider, settings):
    store_oauth(admin_api, oauth_provider)
    settings.OUTBOUND_ALLOW_PRIVATE_NETWORKS = False  # loopback is refused again
    data = assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))
    assert data["refreshError"]["code"] == "REFRESH_REJECTED" and "refused" in data["refreshError"]["message"]
    assert oauth_provider.token_calls() == []


@pytest.mark.django_db
def test_client_credentials_get_a_token_with_the_client_secret(admin_api, oauth_provider):
    oauth_provider.clients["cid"] = "c-secret"
    body = store_body(
        authType="oauth2_client_credentials",
        tokenEndpoint=oauth_provider.token_url,
        secrets={"clientId": "cid", "clientSecret": "c-secret"},
        scopes=["api.read"],
    )
    del body["accessToken"]
    assert_ok(admin_api.post(URL, body, format="json"))
    data = assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))
    assert data["accessToken"] == "fresh-access-1" and data["secrets"]["clientSecret"] == "c-secret"
    [call] = oauth_provider.token_calls()
    assert call.form()["grant_type"] == "client_credentials" and call.form()["client_secret"] == "c-secret"


@pytest.mark.django_db
def test_client_credentials_without_a_client_secret_are_flagged_when_a_refresh_is_due(
    admin_api, oauth_provider, tenant
):
    oauth_provider.clients["cid"] = "c-secret"
    body = store_body(
        authType="oauth2_client_credentials", tokenEndpoint=oauth_provider.token_url, expiresIn=3600
    )
    stored = assert_ok(admin_api.post(URL, body, format="json"))
    Credential.objects.filter(id=stored["id"][5:]).update(expires_at=timezone.now() - timedelta(minutes=1))
    data = assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))
    assert data["accessToken"] == "ak-plain-0001" and data["refreshError"]["code"] == "REFRESH_NOT_POSSIBLE"
    assert "clientSecret" in data["refreshError"]["message"] and data["refreshError"]["at"]
    assert oauth_provider.token_calls() == []  # nothing to send without a client secret
    assert Credential.objects.get(id=stored["id"][5:]).refresh_failed_at is not None
    entry = AuditEntry.objects.get(tenant_id=tenant.id, action="CREDENTIAL_REFRESH_FAILED")
    assert entry.status == "failure" and entry.details["reason"] == "REFRESH_NOT_POSSIBLE"
    # Details show the flag; an empty rotate cannot refresh it; rotating the secrets in can.
    details = assert_ok(admin_api.get(f"{URL}/itsm-prod-001/details"))
    assert details["refreshError"]["code"] == "REFRESH_NOT_POSSIBLE"
    rotate = f"{URL}/{stored['id']}/rotate"
    assert_error(admin_api.post(rotate, {}, format="json"), 422, "CREDENTIAL_NOT_REFRESHABLE")
    secrets = {"clientId": "cid", "clientSecret": "c-secret"}
    assert_ok(admin_api.post(rotate, {"secrets": secrets}, format="json"))
    again = assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))
    assert again["accessToken"] == "fresh-access-1" and again["refreshError"] is None


@pytest.mark.django_db
def test_rotate_with_an_empty_body_refreshes_now(admin_api, oauth_provider, tenant):
    stored = store_oauth(admin_api, oauth_provider, expired=False, expiresIn=3600)
    data = assert_ok(admin_api.post(f"{URL}/{stored['id']}/rotate", {}, format="json"))
    assert data["rotation"]["method"] == "refreshed" and len(oauth_provider.token_calls()) == 1
    assert assert_ok(admin_api.get(f"{URL}/itsm-prod-001"))["accessToken"] == "fresh-access-1"


@pytest.mark.django_db
def test_a_refused_refresh_by_rotate_is_502_and_audited(admin_api, oauth_provider, tenant):
    stored = store_oauth(admin_api, oauth_provider, expired=False, expiresIn=3600)
    oauth_provider.mode = "invalid_grant"
    assert_error(
        admin_api.post(f"{URL}/{stored['id']}/rotate", {}, format="json"), 502, "CREDENTIAL_REFRESH_FAILED"
    )
    assert AuditEntry.objects.filter(tenant_id=tenant.id, action="CREDENTIAL_REFRESH_FAILED").count() == 1
    # Rotating new tokens in clears the flag.
    assert_ok(admin_api.post(f"{URL}/{stored['id']}/rotate", {"refreshToken": "rt-new"}, format="json"))
    assert Credential.objects.get(id=stored["id"][5:]).refresh_failed_at is None


# ---- the connector interface


@pytest.mark.django_db
def test_credential_for_use_refreshes_first_and_writes_no_secret_read_entry(
    admin_api, oauth_provider, tenant
):
    store_oauth(admin_api, oauth_provider)
    use = credential_for_use(tenant=tenant, integration_id="itsm-prod-001")
    assert use.access_token == "fresh-access-1" and use.auth_type == "oauth2_bearer"
    assert "fresh-access" not in repr(use)
    assert not AuditEntry.objects.filter(tenant_id=tenant.id, action="CREDENTIAL_SECRET_READ").exists()
    assert Credential.objects.get(integration_id="itsm-prod-001").access_count == 1


@pytest.mark.django_db
def test_credential_for_use_refuses_inactive_unknown_and_dead_credentials(admin_api, oauth_provider, tenant):
    stored = store_oauth(admin_api, oauth_provider)
    oauth_provider.mode = "invalid_grant"
    with pytest.raises(ApiError) as refused:
        credential_for_use(tenant=tenant, integration_id="itsm-prod-001")
    assert refused.value.code == "CREDENTIAL_EXPIRED"
    assert_ok(admin_api.patch(f"{URL}/itsm-prod-001/{stored['id']}", {"status": "inactive"}, format="json"))
    with pytest.raises(ApiError) as inactive:
        credential_for_use(tenant=tenant, integration_id="itsm-prod-001")
    assert inactive.value.code == "CREDENTIAL_INACTIVE"
    with pytest.raises(ApiError) as missing:
        credential_for_use(tenant=tenant, integration_id="nope")
    assert missing.value.code == "CREDENTIAL_NOT_FOUND"


# ---- concurrency (needs real row locks)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks under concurrent readers need PostgreSQL"
)
def test_twenty_concurrent_reads_of_an_expired_token_make_one_upstream_call(
    client_for, owner, tenant, oauth_provider
):
    api = client_for(owner, tenant)
    store_oauth(api, oauth_provider)
    oauth_provider.latency = 0.2  # keep the first refresh in flight while the others arrive

    def read(_):
        try:
            return client_for(owner, tenant).get(f"{URL}/itsm-prod-001").json()["data"]["accessToken"]
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=20) as pool:
        tokens = list(pool.map(read, range(20)))
    assert len(oauth_provider.token_calls()) == 1
    assert set(tokens) == {"fresh-access-1"}
