"""The OAuth 2 provider's rules without a browser: PKCE, the consent page's membership and role
checks, lifetimes from tokenSettings, revocation (RFC 7009) and introspection (RFC 7662)."""

import base64
import hashlib
import re
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client
from rest_framework.test import APIClient

from core.models import AuditEntry
from tests import factories
from tests.helpers import assert_error, assert_ok

pytestmark = pytest.mark.django_db
CALLBACK = "https://app.example/callback"
VERIFIER = "a-long-enough-code-verifier-for-the-tests-0123456789"
CHALLENGE = base64.urlsafe_b64encode(hashlib.sha256(VERIFIER.encode()).digest()).rstrip(b"=").decode()


def form_post(path, form, **headers):
    body = urlencode(form)
    return APIClient().generic(
        "POST", path, body, content_type="application/x-www-form-urlencoded", **headers
    )


def register(as_owner, **fields):
    body = {"name": "web app", "clientType": "public", "redirectUris": [CALLBACK],
            "grantTypes": ["authorization_code", "refresh_token"],
            "scopes": ["vault:read", "admin:read"]}  # fmt: skip
    return assert_ok(as_owner.post("/api/v1/oauth-clients", body | fields, format="json"))


def authorize(user, client_id, *, scope="vault:read", **extra):
    """The user signs in and answers the consent page; returns the redirect's query."""
    browser = Client()
    browser.force_login(user)
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": CALLBACK, "scope": scope,
             "state": "s1", "code_challenge": CHALLENGE, "code_challenge_method": "S256"} | extra  # fmt: skip
    page = browser.get("/oauth/authorize?" + urlencode({k: v for k, v in query.items() if v is not None}))
    if page.status_code == 302:
        return parse_qs(urlsplit(page["Location"]).query)
    form = dict(re.findall(r'name="([a-z_]+)" value="([^"]*)"', page.content.decode()))
    answer = browser.post("/oauth/authorize", form | {"allow": "Authorize"})
    return parse_qs(urlsplit(answer["Location"]).query)


def exchange(client_id, code, verifier=VERIFIER):
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK,
            "client_id": client_id, "code_verifier": verifier}  # fmt: skip
    return form_post("/oauth/token", form)


def test_a_public_client_must_use_pkce_with_s256(as_owner, tenant):
    app = register(as_owner)
    user = factories.make_user(tenant, ["integration_viewer"])
    assert authorize(user, app["clientId"], code_challenge=None, code_challenge_method=None)["error"] == [
        "invalid_request"
    ]
    plain = authorize(user, app["clientId"], code_challenge=VERIFIER, code_challenge_method="plain")
    assert plain["error"] == ["invalid_request"]
    code = authorize(user, app["clientId"])["code"][0]
    assert exchange(app["clientId"], code, verifier="x" * 50).json()["error"] == "invalid_grant"


def test_only_members_whose_roles_cover_the_scopes_may_allow(as_owner, tenant, other_tenant):
    app = register(as_owner)
    outsider = factories.make_user(other_tenant, ["tenant_admin"])
    denied = authorize(outsider, app["clientId"])
    assert denied["error"] == ["access_denied"] and denied["state"] == ["s1"]
    viewer = factories.make_user(tenant, ["integration_viewer"])
    assert authorize(viewer, app["clientId"], scope="vault:read admin:read")["error"] == ["access_denied"]
    code = authorize(viewer, app["clientId"])["code"][0]
    token = exchange(app["clientId"], code).json()["access_token"]
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_X_TENANTID=str(tenant.id))
    assert_ok(api.get("/api/v1/credentials"))
    viewer.memberships.all().delete()  # a token acts for its user only while the user is a member
    assert_error(api.get("/api/v1/credentials"), 401, "UNAUTHORIZED")


def test_lifetimes_come_from_the_clients_token_settings(as_owner, tenant):
    settings = {"accessTokenLifetime": 120, "refreshTokenLifetime": 600}
    app = register(as_owner, tokenSettings=settings)
    assert app["tokenSettings"] == settings | {"idTokenLifetime": 3600}
    code = authorize(factories.make_user(tenant, ["tenant_admin"]), app["clientId"])["code"][0]
    assert exchange(app["clientId"], code).json()["expires_in"] == 120
    too_long = as_owner.patch(
        f"/api/v1/oauth-clients/{app['id']}", {"tokenSettings": {"accessTokenLifetime": 10**7}}, format="json"
    )
    assert "tokenSettings.accessTokenLifetime" in assert_error(too_long, 422, "VALIDATION_ERROR")["details"]


def test_grants_the_provider_does_not_serve_are_refused(as_owner):
    for grants in (["password"], ["implicit"], ["refresh_token"], ["client_credentials", "device_code"]):
        body = {"name": "x", "clientType": "confidential", "grantTypes": grants, "scopes": ["vault:read"]}
        error = assert_error(
            as_owner.post("/api/v1/oauth-clients", body, format="json"), 422, "VALIDATION_ERROR"
        )
        assert "grantTypes" in error["details"], grants


def test_revocation_and_introspection(as_owner, tenant, other_tenant, client_for):
    body = {"name": "m2m", "clientType": "confidential", "grantTypes": ["client_credentials"],
            "scopes": ["vault:read"]}  # fmt: skip
    m2m = assert_ok(as_owner.post("/api/v1/oauth-clients", body, format="json"))
    creds = {"client_id": m2m["clientId"], "client_secret": m2m["clientSecret"]}
    token = form_post("/oauth/token", {"grant_type": "client_credentials"} | creds).json()["access_token"]
    seen = form_post("/oauth/introspect", {"token": token} | creds).json()
    assert seen["active"] is True and seen["scope"] == "vault:read" and seen["client_id"] == m2m["clientId"]
    stranger = factories.make_user(other_tenant, ["tenant_admin"])
    theirs = assert_ok(client_for(stranger, other_tenant).post("/api/v1/oauth-clients", body, format="json"))
    their_creds = {"client_id": theirs["clientId"], "client_secret": theirs["clientSecret"]}
    assert form_post("/oauth/introspect", {"token": token} | their_creds).json() == {"active": False}
    assert form_post("/oauth/introspect", {"token": token, "client_id": m2m["clientId"]}).status_code == 401
    revoked = form_post("/oauth/revoke", {"token": token} | creds)
    assert revoked.status_code == 200
    assert form_post("/oauth/introspect", {"token": token} | creds).json() == {"active": False}
    assert_error(client_for(token, tenant).get("/api/v1/credentials"), 401, "UNAUTHORIZED")
    entry = AuditEntry.objects.get(action="OAUTH_TOKEN_REVOKED")
    assert token not in str(entry.details) and m2m["clientSecret"] not in str(entry.details)
