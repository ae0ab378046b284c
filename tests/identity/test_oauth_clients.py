"""OAuth clients, /oauth/token (client credentials) and service accounts."""

import base64

import pytest
from oauth2_provider.models import AccessToken
from rest_framework.test import APIClient

from core.models import AuditEntry
from identity.models import OAuthClient, ServiceAccount
from tests import factories
from tests.helpers import assert_error, assert_ok

pytestmark = pytest.mark.django_db
URL = "/api/v1/oauth-clients"
TOKEN = "/oauth/token"


def create(client, **fields):
    body = {
        "name": "reporting",
        "clientType": "confidential",
        "redirectUris": [],
        "grantTypes": ["client_credentials"],
        "scopes": ["admin:read"],
    } | fields
    return client.post(URL, body, format="json")


def _post(form, **headers):
    from urllib.parse import urlencode

    return APIClient().generic(
        "POST", TOKEN, urlencode(form), content_type="application/x-www-form-urlencoded", **headers
    )


def basic(client_id, secret):
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()


@pytest.fixture
def registered(as_owner):
    return assert_ok(create(as_owner))


def test_the_owner_creates_a_client_whose_secret_is_shown_once(as_owner, registered, tenant):
    assert registered["clientSecret"].startswith("cs_") and registered["status"] == "active"
    assert registered["tokenSettings"]["accessTokenLifetime"] == 3600
    client = OAuthClient.objects.get(id=registered["id"])
    assert registered["clientSecret"] not in str(client.__dict__)
    listed = assert_ok(as_owner.get(URL))
    assert listed["pagination"]["total"] == 1 and "clientSecret" not in listed["clients"][0]
    detail = assert_ok(as_owner.get(f"{URL}/client-{registered['id']}"))
    assert detail["security"]["allowedAuthMethods"] == ["client_secret_basic", "client_secret_post"]
    assert "clientSecret" not in detail and detail["tenant"]["id"] == str(tenant.id)


LIFETIMES = {"accessTokenLifetime": 3600, "refreshTokenLifetime": 86400, "idTokenLifetime": 3600}


def test_token_lifetimes_are_seconds_on_create_get_list_and_update(as_owner, registered):
    url = f"{URL}/{registered['id']}"
    detail = assert_ok(as_owner.get(url))["tokenSettings"]
    listed = assert_ok(as_owner.get(URL))["clients"][0]["tokenSettings"]
    updated = assert_ok(as_owner.patch(url, {"description": "x"}, format="json"))["tokenSettings"]
    for settings in (registered["tokenSettings"], detail, listed, updated):
        lifetimes = {name: settings[name] for name in LIFETIMES}
        assert lifetimes == LIFETIMES and all(type(v) is int for v in lifetimes.values()), settings


def test_a_client_credentials_client_needs_no_redirect_uris(as_owner):
    body = {"name": "m2m", "clientType": "confidential", "grantTypes": ["client_credentials"]}
    data = assert_ok(as_owner.post(URL, body | {"scopes": ["admin:read"]}, format="json"))
    assert data["redirectUris"] == [] and data["grantTypes"] == ["client_credentials"]


def test_only_the_authorization_code_grant_needs_a_redirect_uri(as_owner):
    body = {"name": "web", "clientType": "confidential", "scopes": ["admin:read"]}
    error = assert_error(
        as_owner.post(URL, body | {"grantTypes": ["authorization_code"]}, format="json"),
        422,
        "VALIDATION_ERROR",
    )
    assert "redirectUris" in error["details"]
    web = assert_ok(
        as_owner.post(
            URL,
            body | {"grantTypes": ["authorization_code"], "redirectUris": ["https://app.test/cb"]},
            format="json",
        )
    )
    url = f"{URL}/{web['id']}"
    cleared = as_owner.patch(url, {"redirectUris": []}, format="json")
    assert "redirectUris" in assert_error(cleared, 422, "VALIDATION_ERROR")["details"]
    machine = {"grantTypes": ["client_credentials"], "redirectUris": []}
    assert assert_ok(as_owner.patch(url, machine, format="json"))["redirectUris"] == []
    back = as_owner.patch(url, {"grantTypes": ["client_credentials", "authorization_code"]}, format="json")
    assert "redirectUris" in assert_error(back, 422, "VALIDATION_ERROR")["details"]
    assert OAuthClient.objects.get(id=web["id"]).grant_types == ["client_credentials"]


@pytest.mark.parametrize(
    ("fields", "status", "field"),
    [
        ({"clientType": "secret"}, 422, "clientType"),
        ({"grantTypes": ["implicit"]}, 422, "grantTypes"),
        ({"clientType": "public"}, 422, "grantTypes"),
        ({"redirectUris": ["http://example.com/cb"]}, 422, "redirectUris.0"),
        ({"redirectUris": ["https://example.com/cb#x"]}, 422, "redirectUris.0"),
        ({"grantTypes": ["authorization_code"]}, 422, "redirectUris"),
        ({"scopes": ["ticketing:read"]}, 422, "scopes"),
        ({"scopes": "admin:read"}, 400, "scopes"),
        ({"name": ""}, 422, "name"),
        ({"name": 7}, 400, "name"),
        ({"grantTypes": []}, 422, "grantTypes"),
        ({"grantTypes": ["refresh_token"]}, 422, "grantTypes"),
        ({"redirectUris": [" https://app.example/cb"]}, 422, "redirectUris.0"),
        ({"redirectUris": ["https://app example/cb"]}, 422, "redirectUris.0"),
        ({"allowedOrigins": ["https://app.example/path"]}, 422, "allowedOrigins.0"),
        ({"ipWhitelist": ["10.0.0.0/33"]}, 422, "ipWhitelist"),
        ({"ipWhitelist": ["::ffff:10.0.0.1"]}, 422, "ipWhitelist"),
        ({"ipWhitelist": [" 10.0.0.1"]}, 422, "ipWhitelist"),
        ({"tokenSettings": {"accessTokenLifetime": "600"}}, 400, "tokenSettings.accessTokenLifetime"),
    ],
)
def test_bad_clients_are_refused(as_owner, fields, status, field):
    error = assert_error(create(as_owner, **fields), status, "VALIDATION_ERROR")
    assert field in error["details"], error
    assert not OAuthClient.objects.exists()


def test_redirects_are_https_or_http_on_a_loopback_address(as_owner):
    for uri in ("http://app.example/cb", "http://10.0.0.5:3000/cb", "https://app.example/cb#top"):
        error = assert_error(
            create(as_owner, grantTypes=["authorization_code"], redirectUris=[uri]), 422, "VALIDATION_ERROR"
        )
        assert "redirectUris.0" in error["details"], error
    for n, uri in enumerate(("https://app.example/cb", "http://127.0.0.1/cb", "http://[::1]:8080/cb",
                             "http://localhost:3000/cb")):  # fmt: skip
        data = assert_ok(
            create(as_owner, name=f"app {n}", grantTypes=["authorization_code"], redirectUris=[uri])
        )
        assert data["pkceRequired"] is True


def test_origins_and_allow_lists_are_kept_as_sent(as_owner):
    data = assert_ok(
        create(
            as_owner,
            allowedOrigins=["https://app.example", "http://localhost:3000/"],
            ipWhitelist=["10.0.0.0/8", "203.0.113.7", "2001:db8::/32", "::1"],
        )
    )
    assert data["allowedOrigins"] == ["https://app.example", "http://localhost:3000/"]
    assert data["ipWhitelist"] == ["10.0.0.0/8", "203.0.113.7", "2001:db8::/32", "::1"]


def test_a_duplicate_name_is_409(as_owner, registered):
    assert_error(create(as_owner), 409, "OAUTH_CLIENT_NAME_EXISTS")


def test_patch_replaces_arrays_and_reports_the_changes(as_owner, registered):
    data = assert_ok(
        as_owner.patch(
            f"{URL}/{registered['id']}",
            {"scopes": ["admin:read", "vault:read"], "description": "x"},
            format="json",
        )
    )
    assert data["changes"]["scopes"] == {"added": ["vault:read"], "removed": []}
    assert data["changes"]["description"] == {"from": "", "to": "x"}
    assert AuditEntry.objects.filter(action="OAUTH_CLIENT_UPDATED").exists()


def test_patch_refuses_bad_values_and_changes_nothing(as_owner, registered):
    url = f"{URL}/{registered['id']}"
    assert_error(as_owner.patch(url, {"clientType": "public"}, format="json"), 422, "VALIDATION_ERROR")
    assert_error(as_owner.patch(url, {"status": "deleted"}, format="json"), 422, "VALIDATION_ERROR")
    assert OAuthClient.objects.get(id=registered["id"]).client_type == "confidential"
    assert_ok(create(as_owner, name="other"))
    assert_error(as_owner.patch(url, {"name": "other"}, format="json"), 409, "OAUTH_CLIENT_NAME_EXISTS")


def test_path_ids_must_be_uuids(as_owner):
    assert_error(as_owner.get(f"{URL}/client-nope"), 400, "INVALID_PARAMETER")
    assert_error(as_owner.get(f"{URL}/00000000-0000-0000-0000-000000000000"), 404, "OAUTH_CLIENT_NOT_FOUND")


def test_another_tenants_client_is_404_and_untouched(as_outsider, registered):
    url = f"{URL}/{registered['id']}"
    assert_error(as_outsider.get(url), 404, "OAUTH_CLIENT_NOT_FOUND")
    assert_error(
        as_outsider.patch(url, {"description": "mine"}, format="json"), 404, "OAUTH_CLIENT_NOT_FOUND"
    )
    assert_error(as_outsider.delete(url), 404, "OAUTH_CLIENT_NOT_FOUND")
    assert_error(as_outsider.post(url + "/rotate-secret"), 404, "OAUTH_CLIENT_NOT_FOUND")
    assert OAuthClient.objects.get(id=registered["id"]).status == "active"


def test_put_and_a_post_to_a_client_are_a_json_405(as_owner, registered):
    url = f"{URL}/{registered['id']}"
    for response in (as_owner.put(url, {}, format="json"), as_owner.post(url, {}, format="json")):
        assert_error(response, 405, "METHOD_NOT_ALLOWED")
        assert response["Allow"] == "GET, PATCH, DELETE, HEAD, OPTIONS"


def test_a_teammate_may_not_manage_clients(as_teammate):
    assert_error(create(as_teammate), 403, "FORBIDDEN")


def test_a_token_calls_what_its_scopes_allow_and_gets_403_elsewhere(registered, client_for, tenant):
    response = _post(
        {"grant_type": "client_credentials"},
        HTTP_AUTHORIZATION=basic(registered["clientId"], registered["clientSecret"]),
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600 and body["scope"] == "admin:read"
    assert body["access_token"].startswith("oat_") and response["Cache-Control"] == "no-store"
    api = client_for(body["access_token"], tenant)
    assert_ok(api.get(URL))
    assert_error(api.post(URL, {}, format="json"), 403, "FORBIDDEN")
    stored = AccessToken.objects.get()
    assert body["access_token"] not in str(stored.__dict__)


def test_client_secret_post_works_and_a_narrower_scope_can_be_asked(registered):
    response = _post(
        {
            "grant_type": "client_credentials",
            "client_id": registered["clientId"],
            "client_secret": registered["clientSecret"],
            "scope": "admin:read",
        }
    )
    assert response.status_code == 200 and response.json()["scope"] == "admin:read"


def test_deleting_the_client_revokes_its_tokens(as_owner, registered, client_for, tenant):
    raw = _post(
        {"grant_type": "client_credentials"},
        HTTP_AUTHORIZATION=basic(registered["clientId"], registered["clientSecret"]),
    ).json()["access_token"]
    deleted = assert_ok(as_owner.delete(f"{URL}/{registered['id']}"))
    assert deleted["status"] == "deleted" and deleted["tokensRevoked"] == 1
    assert_error(client_for(raw, tenant).get(URL), 401, "UNAUTHORIZED")
    again = assert_error(as_owner.delete(f"{URL}/{registered['id']}"), 409, "OAUTH_CLIENT_ALREADY_DELETED")
    assert again["details"] == {"deletedAt": deleted["deletedAt"]}
    again = _post(
        {"grant_type": "client_credentials"},
        HTTP_AUTHORIZATION=basic(registered["clientId"], registered["clientSecret"]),
    )
    assert again.status_code == 401 and again.json()["error"] == "invalid_client"


def test_disabling_the_client_revokes_its_tokens(as_owner, registered, client_for, tenant):
    raw = _post(
        {"grant_type": "client_credentials"},
        HTTP_AUTHORIZATION=basic(registered["clientId"], registered["clientSecret"]),
    ).json()["access_token"]
    assert_ok(as_owner.patch(f"{URL}/{registered['id']}", {"status": "inactive"}, format="json"))
    assert_error(client_for(raw, tenant).get(URL), 401, "UNAUTHORIZED")


def test_rotating_the_secret_retires_the_old_one(as_owner, registered):
    rotated = assert_ok(as_owner.post(f"{URL}/{registered['id']}/rotate-secret"))
    assert rotated["clientSecret"] != registered["clientSecret"] and rotated["secretRotationCount"] == 1
    old = _post(
        {"grant_type": "client_credentials"},
        HTTP_AUTHORIZATION=basic(registered["clientId"], registered["clientSecret"]),
    )
    assert old.status_code == 401
    new = _post(
        {"grant_type": "client_credentials"},
        HTTP_AUTHORIZATION=basic(registered["clientId"], rotated["clientSecret"]),
    )
    assert new.status_code == 200
    entry = AuditEntry.objects.get(action="OAUTH_CLIENT_SECRET_ROTATED")
    assert rotated["clientSecret"] not in str(entry.details)


def test_token_errors_follow_rfc_6749(registered):
    wrong = _post(
        {"grant_type": "client_credentials"}, HTTP_AUTHORIZATION=basic(registered["clientId"], "nope")
    )
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
    assert wrong["WWW-Authenticate"].startswith("Basic")
    grant = _post(
        {
            "grant_type": "password",
            "client_id": registered["clientId"],
            "client_secret": registered["clientSecret"],
        }
    )
    assert grant.status_code == 400 and grant.json()["error"] == "unsupported_grant_type"
    scope = _post(
        {"grant_type": "client_credentials", "scope": "vault:write"},
        HTTP_AUTHORIZATION=basic(registered["clientId"], registered["clientSecret"]),
    )
    assert scope.status_code == 400 and scope.json()["error"] == "invalid_scope"
    missing = _post({"client_id": registered["clientId"], "client_secret": registered["clientSecret"]})
    assert missing.status_code == 400 and missing.json()["error"] == "invalid_request"
    json_body = APIClient().post(TOKEN, {"grant_type": "client_credentials"}, format="json")
    assert json_body.status_code == 415 and json_body.json()["error"] == "invalid_request"
    failed = AuditEntry.objects.get(action="OAUTH_TOKEN_DENIED")
    assert failed.status == "failure" and "nope" not in str(failed.details)


def test_the_token_endpoint_is_rate_limited_per_address(registered, settings):
    settings.RATE_LIMIT_LOGIN = "2/m"
    for _ in range(2):
        _post({"grant_type": "client_credentials"}, HTTP_AUTHORIZATION=basic(registered["clientId"], "x"))
    limited = _post(
        {"grant_type": "client_credentials"}, HTTP_AUTHORIZATION=basic(registered["clientId"], "x")
    )
    assert limited.status_code == 429 and limited["Retry-After"]


def test_a_service_account_gets_tokens_with_its_mapped_scopes(as_owner, client_for, tenant):
    account = assert_ok(as_owner.post("/api/v1/admin/service-account/create"))
    assert account["id"].startswith("sa-") and account["clientId"].startswith("sa_client_")
    assert account["clientSecret"].startswith("sa_secret_") and account["permissions"] == [
        "api:read",
        "api:write",
    ]
    assert account["name"].startswith("service-account-")
    stored = ServiceAccount.objects.get()
    assert account["clientSecret"] not in str(stored.__dict__)
    response = _post(
        {
            "grant_type": "client_credentials",
            "client_id": account["clientId"],
            "client_secret": account["clientSecret"],
        }
    )
    assert response.status_code == 200, response.content
    assert "tools:execute" in response.json()["scope"].split()
    api = client_for(response.json()["access_token"], tenant)
    assert_error(api.get(URL), 403, "FORBIDDEN")  # admin scopes are not part of api:read/api:write


def test_service_accounts_are_limited_per_tenant(as_owner, tenant, monkeypatch):
    from identity.services import oauth

    monkeypatch.setattr(oauth, "SERVICE_ACCOUNT_LIMIT", 1)
    assert_ok(as_owner.post("/api/v1/admin/service-account/create"))
    assert_error(as_owner.post("/api/v1/admin/service-account/create"), 409, "SERVICE_ACCOUNT_LIMIT_REACHED")


def test_a_teammate_may_not_create_service_accounts(as_teammate):
    assert_error(as_teammate.post("/api/v1/admin/service-account/create"), 403, "FORBIDDEN")


def test_an_oauth_token_in_another_tenant_is_403(registered, client_for, other_tenant):
    raw = _post(
        {"grant_type": "client_credentials"},
        HTTP_AUTHORIZATION=basic(registered["clientId"], registered["clientSecret"]),
    ).json()["access_token"]
    assert_error(client_for(raw, other_tenant).get(URL), 403, "FORBIDDEN")
    assert_error(client_for("oat_forged", other_tenant).get(URL), 401, "UNAUTHORIZED")


def test_principal_shape_is_kept_for_tool_authorisation(registered, tenant):
    from identity.authentication import oauth_token_principal

    factories.make_api_key(tenant)
    _post(
        {"grant_type": "client_credentials"},
        HTTP_AUTHORIZATION=basic(registered["clientId"], registered["clientSecret"]),
    )
    principal = oauth_token_principal(AccessToken.objects.get())
    assert principal.kind == "oauth_client" and principal.has_scope("admin:read")
    assert not principal.may_run_tool("itsm.tickets.create")


def test_control_characters_in_client_credentials_are_invalid_client(registered):
    response = _post({"grant_type": "client_credentials", "client_id": "client_\x00x", "client_secret": "s"})
    assert response.status_code == 401 and response.json()["error"] == "invalid_client"


def test_creating_a_public_client_says_it_has_no_secret(as_owner):
    fields = {
        "clientType": "public",
        "grantTypes": ["authorization_code"],
        "redirectUris": ["https://app.example.com/callback"],
        "scopes": ["vault:read"],
    }
    response = create(as_owner, **fields)
    body = response.json()
    assert response.status_code == 200 and body["data"]["clientSecret"] is None
    assert body["message"] == "OAuth client created. It is public: it has no secret."
