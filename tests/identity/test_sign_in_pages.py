"""The console's and the OAuth provider's sign-in pages count attempts like the token endpoint (per
address and per username), answer a page with 429 and Retry-After once spent, and audit every
sign-in with its channel."""

from __future__ import annotations

import pytest
from django.test import Client

from core.models import AuditEntry
from tests.factories import PASSWORD

PAGES = [("/admin/login/", "console"), ("/oauth/login", "oauth")]


def _sign_in(client: Client, page: str, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post(page, {"username": username, "password": password}, REMOTE_ADDR=ip)


@pytest.mark.parametrize(("page", "channel"), PAGES)
def test_wrong_passwords_are_audited_then_refused_with_a_429_page(page, channel, owner, settings):
    settings.RATE_LIMIT_LOGIN = "3/m"
    client = Client()
    for _ in range(3):
        assert _sign_in(client, page, "owner", "wrong").status_code == 200  # the form again
    refused = _sign_in(client, page, "owner", PASSWORD)  # even the right one, until the window ends
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "Too many sign-in attempts" in refused.content.decode()
    failures = AuditEntry.objects.filter(action="USER_LOGIN_FAILED")
    assert failures.count() == 3
    assert all(e.details["channel"] == channel and e.status == "failure" for e in failures)
    assert all("wrong" not in str(e.details) for e in failures)


@pytest.mark.parametrize(("page", "channel"), PAGES)
def test_one_username_is_counted_across_addresses(page, channel, owner, settings):
    settings.RATE_LIMIT_LOGIN = "2/m"
    client = Client()
    for n in range(2):
        _sign_in(client, page, "owner", "wrong", ip=f"10.0.0.{n + 1}")
    assert _sign_in(client, page, "owner", "wrong", ip="10.0.0.9").status_code == 429


@pytest.mark.parametrize(("page", "channel"), PAGES)
def test_a_successful_sign_in_is_audited_with_its_channel(page, channel, owner, tenant):
    owner.is_staff = True  # a tenant admin opens the console
    owner.save()
    response = _sign_in(Client(), page, "owner", PASSWORD)
    assert response.status_code == 302
    entry = AuditEntry.objects.get(action="USER_LOGIN")
    assert entry.details == {"method": "password", "channel": channel}
    assert entry.tenant_id == tenant.id and entry.actor["ipAddress"] == "10.0.0.1"


def test_the_api_token_endpoint_audits_a_failure_once(client, owner):
    client.post(
        "/api/v1/auth/token", {"username": "owner", "password": "wrong"}, content_type="application/json"
    )
    assert AuditEntry.objects.filter(action="USER_LOGIN_FAILED").count() == 1
