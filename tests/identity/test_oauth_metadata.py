"""Authorization-server metadata (RFC 8414) at its well-known path and at the OpenID discovery
path: a client with nothing but the address finds every endpoint and rule of the provider."""

from __future__ import annotations

import pytest

from tests import factories
from tests.identity.test_oauth_provider import authorize, register

pytestmark = pytest.mark.django_db
BASE = "http://testserver"


@pytest.mark.parametrize(
    "path", ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]
)
def test_the_metadata_names_the_endpoints_and_rules(anon, path):
    response = anon.get(path)
    assert response.status_code == 200 and response["Access-Control-Allow-Origin"] == "*"
    document = response.json()
    assert document["issuer"] == BASE
    assert document["authorization_endpoint"] == f"{BASE}/oauth/authorize"
    assert document["token_endpoint"] == f"{BASE}/oauth/token"
    assert document["revocation_endpoint"] == f"{BASE}/oauth/revoke"
    assert document["introspection_endpoint"] == f"{BASE}/oauth/introspect"
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["response_types_supported"] == ["code"]
    assert set(document["grant_types_supported"]) == {
        "authorization_code",
        "client_credentials",
        "refresh_token",
    }
    assert "none" in document["token_endpoint_auth_methods_supported"]
    assert "none" not in document["introspection_endpoint_auth_methods_supported"]
    assert {"knowledge:read", "tools:execute"} <= set(document["scopes_supported"]) and "*" not in document[
        "scopes_supported"
    ]
    assert document["authorization_response_iss_parameter_supported"] is True
    assert document["registration_endpoint"] == f"{BASE}/oauth/register"
    assert document["client_id_metadata_document_supported"] is True


def test_the_issuer_is_the_one_authorization_responses_carry(anon, as_owner, tenant):
    app = register(as_owner)
    answer = authorize(factories.make_user(tenant, ["tenant_admin"]), app["clientId"])
    assert answer["iss"] == [anon.get("/.well-known/oauth-authorization-server").json()["issuer"]]
