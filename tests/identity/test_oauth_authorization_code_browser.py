"""A third-party application's authorization-code flow end to end: authlib as the OAuth client
(PKCE S256), a real browser for the sign-in and consent page, an API call with the issued token,
a refresh, and a replayed refresh token that revokes the whole family."""

from __future__ import annotations

import pytest
import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session

from core.audit import system_actor
from core.models import AuditEntry
from identity.services.oauth import ClientSpec, oauth_client_create
from tests import factories
from tests.browser import needs_chromium, screenshot

pytestmark = [needs_chromium, pytest.mark.django_db(transaction=True)]
CALLBACK = "https://reports.example/callback"  # never contacted: the browser's request is intercepted


def test_a_third_party_app_gets_a_token_through_the_consent_page(browser, live_server, tenant):
    factories.make_user(tenant, ["integration_admin"], username="dana")
    spec = ClientSpec(name="Report builder", client_type="public", redirect_uris=[CALLBACK],
                      grant_types=["authorization_code", "refresh_token"],
                      scopes=["vault:read", "knowledge:read", "admin:read"])  # fmt: skip
    client, _ = oauth_client_create(tenant=tenant, spec=spec, actor=system_actor("tests"), request_id="t")
    app = OAuth2Session(client.client_id, redirect_uri=CALLBACK, scope="vault:read knowledge:read",
                        code_challenge_method="S256", token_endpoint_auth_method="none")  # fmt: skip
    verifier = generate_token(48)
    url, _state = app.create_authorization_url(f"{live_server.url}/oauth/authorize", code_verifier=verifier)

    page = browser.new_page()
    page.route(f"{CALLBACK}*", lambda route: route.fulfill(body="the application's page"))
    page.goto(url)
    page.fill("#id_username", "dana")
    page.fill("#id_password", factories.PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_selector("#authorizationForm")
    assert "Allow Report builder to act for you?" in page.inner_text("h1")
    assert "vault:read" in page.inner_text("ul") and "admin:read" not in page.inner_text("ul")
    screenshot(page, "oauth-consent")
    with page.expect_request(lambda r: r.url.startswith(CALLBACK)) as redirected:
        page.click("button[name=allow]")
    token = app.fetch_token(
        f"{live_server.url}/oauth/token", authorization_response=redirected.value.url, code_verifier=verifier
    )
    assert token["access_token"].startswith("oat_") and token["scope"] == "vault:read knowledge:read"
    api = {"x-tenantid": str(tenant.id)}

    def call(path, access_token):
        headers = api | {"Authorization": f"Bearer {access_token}"}
        return requests.get(f"{live_server.url}{path}", headers=headers, timeout=10)

    assert call("/api/v1/credentials", token["access_token"]).status_code == 200
    assert call("/api/v1/oauth-clients", token["access_token"]).status_code == 403  # not granted

    fresh = app.refresh_token(f"{live_server.url}/oauth/token", refresh_token=token["refresh_token"])
    assert fresh["refresh_token"] != token["refresh_token"]
    assert call("/api/v1/credentials", fresh["access_token"]).status_code == 200
    replay = requests.post(
        f"{live_server.url}/oauth/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": token["refresh_token"],
            "client_id": client.client_id,
        },
        timeout=10,
    )
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert call("/api/v1/credentials", fresh["access_token"]).status_code == 401  # the family is revoked
    reuse = AuditEntry.objects.get(action="OAUTH_REFRESH_TOKEN_REUSED")
    assert reuse.status == "failure" and reuse.details["familyRevoked"] is True
    issued = AuditEntry.objects.filter(action="OAUTH_TOKEN_ISSUED").order_by("timestamp")
    assert [e.details["grantType"] for e in issued] == ["authorization_code", "refresh_token"]
    trail = str(list(AuditEntry.objects.values()))
    for secret in (token["access_token"], token["refresh_token"], fresh["refresh_token"], verifier):
        assert secret not in trail
