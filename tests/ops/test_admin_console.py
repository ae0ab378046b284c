"""The Django admin as the operators' console."""

import re

import pytest

from core.models import AuditEntry
from identity.models import ApiKey, OAuthClient, ServiceAccount
from tests.helpers import assert_ok

pytestmark = pytest.mark.django_db


@pytest.fixture
def console(client, root):
    client.force_login(root)
    return client


def test_adding_an_api_key_shows_it_once_and_it_works(console, tenant, client_for):
    response = console.post(
        "/admin/identity/apikey/add/",
        {
            "tenant": tenant.id,
            "name": "ops",
            "description": "",
            "scopes_text": "admin:read",
            "environment": "live",
        },
    )
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    raw = re.search(r"ak_live_[A-Za-z0-9]+", response.content.decode()).group(0)
    key = ApiKey.objects.get(name="ops")
    assert key.scopes == ["admin:read"] and raw not in str(key.__dict__)
    assert_ok(client_for(raw, tenant).get("/api/v1/api-keys"))
    assert raw not in console.get(f"/admin/identity/apikey/{key.id}/change/").content.decode()
    assert AuditEntry.objects.get(action="API_KEY_CREATED").actor["name"] == "root"


def test_adding_an_oauth_client_shows_its_secret_once(console, tenant):
    response = console.post(
        "/admin/identity/oauthclient/add/",
        {"tenant": tenant.id, "name": "bi", "description": "", "scopes_text": "vault:read"},
    )
    assert response.status_code == 200
    assert re.search(r"cs_[A-Za-z0-9]+", response.content.decode())
    assert OAuthClient.objects.get(name="bi").grant_types == ["client_credentials"]
    without = console.post("/admin/identity/oauthclient/add/", {"name": "x", "scopes_text": "vault:read"})
    assert without.status_code == 200 and not OAuthClient.objects.filter(name="x").exists()


def test_adding_a_service_account_shows_its_secret_once(console, tenant):
    response = console.post("/admin/identity/serviceaccount/add/", {"tenant": tenant.id})
    assert response.status_code == 200
    assert re.search(r"sa_secret_[A-Za-z0-9]+", response.content.decode())
    assert ServiceAccount.objects.filter(tenant=tenant).count() == 1


def test_the_audit_browser_filters_and_verifies_chains(console, tenant, as_owner):
    as_owner.post(
        "/api/v1/api-keys", {"name": "k", "scopes": "vault:read", "environment": "live"}, format="json"
    )
    listing = console.get(f"/admin/core/auditentry/?tenant={tenant.id}&action=API_KEY_CREATED&status=success")
    assert listing.status_code == 200 and "API_KEY_CREATED" in listing.content.decode()
    entry = AuditEntry.objects.get(action="API_KEY_CREATED")
    assert console.get(f"/admin/core/auditentry/?actor={entry.actor_id}").status_code == 200
    response = console.post(
        "/admin/core/auditentry/",
        {"action": "verify_chain", "_selected_action": [str(entry.id)]},
        follow=True,
    )
    assert f"Chain {tenant.id}: intact." in response.content.decode()
    assert console.get(f"/admin/core/auditentry/{entry.id}/change/").status_code == 200
    assert console.post(f"/admin/core/auditentry/{entry.id}/delete/").status_code == 403
