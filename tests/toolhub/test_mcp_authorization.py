"""How a client that knows only the address of /mcp learns to sign in (MCP authorization, RFC
9728): the 401's challenge names the protected-resource metadata, which names the resource, the
authorization server and the scopes to ask for."""

from __future__ import annotations

import pytest

from tests.toolhub.test_mcp import ACCEPT, rpc

pytestmark = pytest.mark.django_db
BASE = "http://testserver"
METADATA = f"{BASE}/.well-known/oauth-protected-resource/mcp"


def test_a_caller_without_credentials_is_sent_to_the_resource_metadata(client_for):
    response = rpc(client_for(None, HTTP_ACCEPT=ACCEPT), "initialize")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == (
        f'Bearer scope="knowledge:read tools:read tools:execute",resource_metadata="{METADATA}"'
    )


def test_a_caller_with_a_bad_token_is_told_it_is_invalid(client_for):
    response = rpc(client_for("oat_not-a-token", HTTP_ACCEPT=ACCEPT), "tools/list")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith('Bearer error="invalid_token",')
    assert f'resource_metadata="{METADATA}"' in response["WWW-Authenticate"]


def test_the_resource_metadata_names_mcp_and_its_authorization_server(anon):
    response = anon.get("/.well-known/oauth-protected-resource/mcp")
    assert response.status_code == 200
    assert response.json() == {
        "resource": f"{BASE}/mcp",
        "authorization_servers": [BASE],
        "scopes_supported": ["knowledge:read", "tools:read", "tools:execute"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Tool hub (MCP)",
    }
    issuer = anon.get("/.well-known/oauth-authorization-server").json()["issuer"]
    assert response.json()["authorization_servers"] == [issuer]
