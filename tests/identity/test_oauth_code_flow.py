"""The authorization-code flow's finer rules, as an independent client finds them: loopback
redirects on any port (RFC 8252), the redirect URI repeated at the exchange (RFC 6749 4.1.3), a
replayed code revoking what it issued (4.1.2), bad requests refused before any page, and tokens
bound to one resource (RFC 8707)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client

from core.models import AuditEntry
from tests import factories
from tests.helpers import assert_error, assert_ok
from tests.identity.test_oauth_provider import CALLBACK, CHALLENGE, VERIFIER, authorize, form_post, register

pytestmark = pytest.mark.django_db
LOOPBACK = "http://127.0.0.1/callback"
MCP = "http://testserver/mcp"


def exchange(client_id, code, *, redirect_uri=CALLBACK, **extra):
    form = {"grant_type": "authorization_code", "code": code, "client_id": client_id,
            "code_verifier": VERIFIER, "redirect_uri": redirect_uri} | extra  # fmt: skip
    return form_post("/oauth/token", {k: v for k, v in form.items() if v is not None})


@pytest.fixture
def admin(tenant):
    return factories.make_user(tenant, ["tenant_admin"], username="dana")


@pytest.fixture
def app(as_owner):
    return register(as_owner, redirectUris=[CALLBACK, LOOPBACK], scopes=["vault:read", "tools:read"])


def test_a_loopback_redirect_matches_on_any_port(admin, app):
    callback = "http://127.0.0.1:54321/callback"
    answer = authorize(admin, app["clientId"], redirect_uri=callback)
    assert "code" in answer, answer
    token = exchange(app["clientId"], answer["code"][0], redirect_uri=callback)
    assert token.status_code == 200 and token.json()["access_token"].startswith("oat_")


def test_a_loopback_redirect_must_keep_its_path(admin, app):
    page = _browser(admin).get("/oauth/authorize?" + _query(app, redirect_uri="http://127.0.0.1:5000/other"))
    assert page.status_code == 400 and "code=" not in page.get("Location", "")


def test_the_exchange_must_repeat_the_redirect_uri(admin, app):
    code = authorize(admin, app["clientId"])["code"][0]
    refused = exchange(app["clientId"], code, redirect_uri=None)
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_request"
    assert exchange(app["clientId"], code).status_code == 200  # the code was not spent by the refusal


def test_an_authorization_request_must_name_its_redirect_uri(as_owner, admin):
    one_redirect = register(as_owner, name="one redirect")  # none to fall back on but CALLBACK
    page = _browser(admin).get("/oauth/authorize?" + _query(one_redirect, redirect_uri=None))
    assert page.status_code == 400 and b"redirect_uri is required" in page.content


def test_a_replayed_code_revokes_what_its_first_exchange_issued(client_for, tenant, admin, app):
    code = authorize(admin, app["clientId"])["code"][0]
    first = exchange(app["clientId"], code).json()
    assert_ok(client_for(first["access_token"], tenant).get("/api/v1/credentials"))
    replay = exchange(app["clientId"], code)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert_error(client_for(first["access_token"], tenant).get("/api/v1/credentials"), 401, "UNAUTHORIZED")
    refresh = {
        "grant_type": "refresh_token",
        "refresh_token": first["refresh_token"],
        "client_id": app["clientId"],
    }
    assert form_post("/oauth/token", refresh).json()["error"] == "invalid_grant"
    entry = AuditEntry.objects.get(action="OAUTH_CODE_REUSED")
    assert entry.status == "failure" and code not in str(entry.details)


def test_plain_pkce_is_refused_before_the_sign_in_and_the_consent_page(admin, app):
    query = _query(app, code_challenge=VERIFIER, code_challenge_method="plain")
    for browser in (Client(), _browser(admin)):  # signed out, then signed in
        page = browser.get(f"/oauth/authorize?{query}")
        assert page.status_code == 302, page.content[:300]
        sent_to = urlsplit(page["Location"])
        assert f"{sent_to.scheme}://{sent_to.netloc}{sent_to.path}" == CALLBACK
        assert parse_qs(sent_to.query)["error"] == ["invalid_request"]


def test_a_well_formed_request_of_a_signed_out_user_goes_to_the_sign_in(app):
    page = Client().get("/oauth/authorize?" + _query(app))
    assert page.status_code == 302 and page["Location"].startswith("/oauth/login")


# ---- RFC 8707: a token for one resource


def test_a_resource_served_elsewhere_is_an_invalid_target(admin, app):
    answer = authorize(admin, app["clientId"], resource="https://other.example/mcp")
    assert answer["error"] == ["invalid_target"]
    code = authorize(admin, app["clientId"])["code"][0]
    refused = exchange(app["clientId"], code, resource="https://other.example/mcp")
    assert refused.status_code == 400 and refused.json()["error"] == "invalid_target"


def _token(admin, app, resource: str | None) -> str:
    code = authorize(admin, app["clientId"], scope="vault:read tools:read", resource=resource)["code"][0]
    answer = exchange(app["clientId"], code).json()
    assert answer["access_token"].startswith("oat_"), answer
    return answer["access_token"]


def _mcp_ping(client_for, token: str):
    body = '{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    client = client_for(token, HTTP_ACCEPT="application/json")
    return client.generic("POST", "/mcp", body, content_type="application/json")


def test_a_token_for_mcp_is_refused_by_the_rest_api(client_for, tenant, admin, app):
    token = _token(admin, app, MCP)
    assert _mcp_ping(client_for, token).status_code == 200
    refused = client_for(token, tenant).get("/api/v1/credentials")
    assert_error(refused, 401, "UNAUTHORIZED")
    assert (
        'error="invalid_token"' not in refused["WWW-Authenticate"] or "resource" in refused.content.decode()
    )


def test_a_token_for_another_resource_is_refused_by_mcp(client_for, tenant, admin, app):
    token = _token(admin, app, "http://testserver/api/v1")
    assert_ok(client_for(token, tenant).get("/api/v1/credentials"))
    assert _mcp_ping(client_for, token).status_code == 401


def test_a_token_without_a_resource_and_an_api_key_work_at_both(client_for, tenant, admin, app):
    _key, raw = factories.make_api_key(tenant, ["vault:read", "tools:read"], name="both")
    for credential in (_token(admin, app, None), raw):
        assert_ok(client_for(credential, tenant).get("/api/v1/credentials"))
        assert _mcp_ping(client_for, credential).status_code == 200


def _browser(user) -> Client:
    browser = Client()
    browser.force_login(user)
    return browser


def _query(app, **changes) -> str:
    query = {"response_type": "code", "client_id": app["clientId"], "redirect_uri": CALLBACK,
             "scope": "vault:read", "state": "s1", "code_challenge": CHALLENGE,
             "code_challenge_method": "S256"} | changes  # fmt: skip
    return urlencode({k: v for k, v in query.items() if v is not None})
